//! One buffer for a step's input and output: records are taken from its front
//! and the step's output is put at its back, into the slots already taken.
//!
//! A step that drains every record into a new array touches memory twice the
//! size of the history (and, for a large one, fresh pages the system zeroes
//! first); a relay moves each record within the one buffer it came in. When
//! the output is no longer than the input read so far, the output ends up at
//! the start of the buffer and [`Relay::finish`] gives it back without moving
//! anything; a step that inserts records just grows the buffer.

use crate::model::{Kind, Record};
use std::collections::VecDeque;

pub(crate) struct Relay<'a, H> {
    q: VecDeque<Record<'a, H>>,
    /// Input records not yet taken (the first `left` of `q`).
    left: usize,
}

impl<'a, H> Relay<'a, H> {
    pub(crate) fn new(mut recs: Vec<Record<'a, H>>) -> Self {
        // No spare room: the first output record goes to the first slot.
        recs.shrink_to_fit();
        let left = recs.len();
        Relay {
            q: VecDeque::from(recs),
            left,
        }
    }

    /// The next input record.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<Record<'a, H>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        self.q.pop_front()
    }

    /// The next input record, not taken.
    #[inline]
    pub(crate) fn peek(&self) -> Option<&Record<'a, H>> {
        if self.left == 0 {
            None
        } else {
            self.q.front()
        }
    }

    /// Appends a record to the output.
    #[inline]
    pub(crate) fn push(&mut self, r: Record<'a, H>) {
        self.q.push_back(r);
    }

    /// Records output so far.
    #[inline]
    pub(crate) fn out_len(&self) -> usize {
        self.q.len() - self.left
    }

    /// The output, once every input record was taken (any left are dropped).
    pub(crate) fn finish(mut self) -> Vec<Record<'a, H>> {
        self.q.drain(..self.left);
        Vec::from(self.q)
    }
}

/// A relay for a step whose output is never longer than its input (each
/// output record takes the place of one or more input records): records are
/// looked at in their slots, and one that goes out as it is ([`InPlace::keep`])
/// is not moved at all while nothing before it was dropped or merged. A step
/// that keeps most records (folding a run of replies, cleaning assistant
/// records) thus touches each record once, not twice more to move it.
pub(crate) struct InPlace<'a, H> {
    v: Vec<Record<'a, H>>,
    /// The next input record.
    read: usize,
    /// Records output so far (the first `write` of `v`); the slots from
    /// `write` to `read` hold records already taken.
    write: usize,
}

impl<'a, H> InPlace<'a, H> {
    pub(crate) fn new(v: Vec<Record<'a, H>>) -> Self {
        InPlace {
            v,
            read: 0,
            write: 0,
        }
    }

    /// The next input record, in its slot.
    #[inline]
    pub(crate) fn next_mut(&mut self) -> Option<&mut Record<'a, H>> {
        self.v.get_mut(self.read)
    }

    /// The next input record goes to the output as it is.
    #[inline]
    pub(crate) fn keep(&mut self) {
        if self.write != self.read {
            self.v.swap(self.write, self.read);
        }
        self.write += 1;
        self.read += 1;
    }

    /// Takes the next input record out of its slot.
    #[inline]
    pub(crate) fn take(&mut self) -> Record<'a, H> {
        let r = std::mem::replace(&mut self.v[self.read], Record::new(0, Kind::Entry, None));
        self.read += 1;
        r
    }

    /// Appends a record to the output: into a slot already taken, or (for a
    /// step that outputs more than it took so far) inserted before the input left.
    #[inline]
    pub(crate) fn push(&mut self, r: Record<'a, H>) {
        if self.write < self.read {
            self.v[self.write] = r;
        } else {
            self.v.insert(self.write, r);
            self.read += 1;
        }
        self.write += 1;
    }

    /// Records output so far.
    #[inline]
    pub(crate) fn out_len(&self) -> usize {
        self.write
    }

    /// Output record `i`.
    #[inline]
    pub(crate) fn out_mut(&mut self, i: usize) -> &mut Record<'a, H> {
        &mut self.v[i]
    }

    /// The output (input records not taken are dropped).
    pub(crate) fn finish(mut self) -> Vec<Record<'a, H>> {
        self.v.truncate(self.write);
        self.v
    }
}

#[cfg(test)]
mod tests {
    use super::{InPlace, Relay};
    use crate::model::{Kind, Record};

    fn recs(n: usize) -> Vec<Record<'static, ()>> {
        (0..n).map(|i| Record::new(i, Kind::User, None)).collect()
    }

    fn indices(v: &[Record<'static, ()>]) -> Vec<usize> {
        v.iter().map(|r| r.index).collect()
    }

    #[test]
    fn output_shorter_than_input_stays_in_the_buffer() {
        let input = recs(10);
        let mut r = Relay::new(input);
        let buf = r.q.as_slices().0.as_ptr();
        while let Some(x) = r.next() {
            if x.index % 3 != 0 {
                r.push(x);
            }
        }
        assert_eq!(r.out_len(), 6);
        let out = r.finish();
        assert_eq!(indices(&out), [1, 2, 4, 5, 7, 8]);
        assert_eq!(out.as_ptr(), buf, "no new buffer");
    }

    #[test]
    fn inserted_records_grow_the_buffer_in_order() {
        let mut r = Relay::new(recs(5));
        let mut extra = 50;
        while let Some(x) = r.next() {
            assert_eq!(
                r.peek().map(|p| p.index),
                (x.index < 4).then_some(x.index + 1)
            );
            r.push(x);
            r.push(Record::new(extra, Kind::User, None));
            extra += 1;
        }
        assert_eq!(r.left, 0);
        assert_eq!(indices(&r.finish()), [0, 50, 1, 51, 2, 52, 3, 53, 4, 54]);
    }

    #[test]
    fn kept_records_stay_in_their_slots() {
        let input = recs(8);
        let mut r = InPlace::new(input);
        let buf = r.v.as_ptr();
        let mut held = None;
        while let Some(x) = r.next_mut() {
            match x.index {
                // kept in place: nothing before them left
                0 | 1 => r.keep(),
                // dropped
                2 => drop(r.take()),
                // held, then written after the next one
                3 => held = Some(r.take()),
                4 => {
                    x.index = 40;
                    r.keep();
                    r.push(held.take().unwrap());
                }
                _ => r.keep(),
            }
        }
        assert_eq!(r.out_len(), 7);
        r.out_mut(0).index = 100;
        let out = r.finish();
        assert_eq!(indices(&out), [100, 1, 40, 3, 5, 6, 7]);
        assert_eq!(out.as_ptr(), buf, "no new buffer");
    }

    #[test]
    fn in_place_output_may_outrun_the_input() {
        let mut r = InPlace::new(recs(3));
        let mut extra = 50;
        while r.next_mut().is_some() {
            r.keep();
            r.push(Record::new(extra, Kind::User, None));
            extra += 1;
        }
        assert_eq!(indices(&r.finish()), [0, 50, 1, 51, 2, 52]);
        let mut r = InPlace::new(recs(3));
        r.keep();
        assert_eq!(indices(&r.finish()), [0], "records not taken are dropped");
    }

    #[test]
    fn records_not_taken_are_dropped() {
        let mut r = Relay::new(recs(4));
        let first = r.next().unwrap();
        r.push(first);
        assert_eq!(indices(&r.finish()), [0]);
        assert!(Relay::new(recs(0)).finish().is_empty());
    }
}
