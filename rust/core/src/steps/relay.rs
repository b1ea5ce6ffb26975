//! One buffer for a step's input and output: records are looked at in their
//! slots, and the step's output is written into the slots already taken.
//!
//! A step that drains every record into a new array touches memory twice the
//! size of the history (and, for a large one, fresh pages the system zeroes
//! first); a relay keeps each record within the one buffer it came in, and one
//! that goes out as it is ([`Relay::keep`]) is not moved at all while nothing
//! before it was dropped or merged. A step that keeps most records (folding a
//! run of replies, cleaning assistant records, pairing tool results) thus
//! touches each record once. A step that outputs more records than it took so
//! far (an inserted record) holds the surplus in a backlog, in order, until
//! slots free up; [`Relay::finish`] gives the buffer back, with any backlog
//! appended.

use crate::model::{Kind, Record};
use std::collections::VecDeque;

pub(crate) struct Relay<'a, H> {
    v: Vec<Record<'a, H>>,
    /// The next input record.
    read: usize,
    /// Output records in `v` (its first `write`); the slots from `write` to
    /// `read` hold records already taken.
    write: usize,
    /// Output records after the first `write`, waiting for a free slot; not
    /// empty only while `write == read`.
    backlog: VecDeque<Record<'a, H>>,
}

impl<'a, H> Relay<'a, H> {
    pub(crate) fn new(mut v: Vec<Record<'a, H>>) -> Self {
        // the spare room the reader's growth left is given back (without it,
        // the bytes path's peak memory was 2.45x its input at 100k, not 2.27x)
        v.shrink_to_fit();
        Relay {
            v,
            read: 0,
            write: 0,
            backlog: VecDeque::new(),
        }
    }

    /// The next input record, in its slot.
    #[inline]
    pub(crate) fn next_mut(&mut self) -> Option<&mut Record<'a, H>> {
        self.v.get_mut(self.read)
    }

    /// Takes the next input record out of the buffer.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<Record<'a, H>> {
        (self.read < self.v.len()).then(|| self.take())
    }

    /// The next input record goes to the output as it is.
    #[inline]
    pub(crate) fn keep(&mut self) {
        if !self.backlog.is_empty() {
            let r = self.take();
            self.push(r);
            return;
        }
        if self.write != self.read {
            self.v.swap(self.write, self.read);
        }
        self.write += 1;
        self.read += 1;
    }

    /// Takes the next input record out of its slot (there must be one: after
    /// [`Relay::next_mut`] or [`Relay::peek`] gave it).
    #[inline]
    pub(crate) fn take(&mut self) -> Record<'a, H> {
        let r = std::mem::replace(&mut self.v[self.read], Record::new(0, Kind::Entry, None));
        self.read += 1;
        if let Some(b) = self.backlog.pop_front() {
            self.v[self.write] = b;
            self.write += 1;
        }
        r
    }

    /// Appends a record to the output.
    #[inline]
    pub(crate) fn push(&mut self, r: Record<'a, H>) {
        if self.write < self.read {
            self.v[self.write] = r;
            self.write += 1;
        } else {
            self.backlog.push_back(r);
        }
    }

    /// Records output so far.
    #[inline]
    pub(crate) fn out_len(&self) -> usize {
        self.write + self.backlog.len()
    }

    /// Output record `i`.
    #[inline]
    pub(crate) fn out_mut(&mut self, i: usize) -> &mut Record<'a, H> {
        match i.checked_sub(self.write) {
            None => &mut self.v[i],
            Some(k) => &mut self.backlog[k],
        }
    }

    /// The output (input records not taken are dropped).
    pub(crate) fn finish(mut self) -> Vec<Record<'a, H>> {
        self.v.truncate(self.write);
        self.v.extend(self.backlog);
        self.v
    }
}

#[cfg(test)]
mod tests {
    use super::Relay;
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
        let buf = r.v.as_ptr();
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
                r.next_mut().map(|p| p.index),
                (x.index < 4).then_some(x.index + 1)
            );
            r.push(x);
            r.push(Record::new(extra, Kind::User, None));
            extra += 1;
        }
        assert_eq!(r.read, 5);
        assert_eq!(r.out_len(), 10);
        assert_eq!(r.out_mut(7).index, 53, "in the backlog");
        assert_eq!(indices(&r.finish()), [0, 50, 1, 51, 2, 52, 3, 53, 4, 54]);
    }

    #[test]
    fn kept_records_stay_in_their_slots() {
        let input = recs(8);
        let mut r = Relay::new(input);
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
        let mut r = Relay::new(recs(3));
        let mut extra = 50;
        while r.next_mut().is_some() {
            r.keep();
            r.push(Record::new(extra, Kind::User, None));
            extra += 1;
        }
        assert_eq!(indices(&r.finish()), [0, 50, 1, 51, 2, 52]);
        let mut r = Relay::new(recs(3));
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
