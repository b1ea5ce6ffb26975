//! One buffer for a step's input and output: records are taken from its front
//! and the step's output is put at its back, into the slots already taken.
//!
//! A step that drains every record into a new array touches memory twice the
//! size of the history (and, for a large one, fresh pages the system zeroes
//! first); a relay moves each record within the one buffer it came in. When
//! the output is no longer than the input read so far, the output ends up at
//! the start of the buffer and [`Relay::finish`] gives it back without moving
//! anything; a step that inserts records just grows the buffer.

use crate::model::Record;
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

    /// Output record `i`.
    #[inline]
    pub(crate) fn out_mut(&mut self, i: usize) -> &mut Record<'a, H> {
        let k = self.left + i;
        &mut self.q[k]
    }

    /// The output, once every input record was taken (any left are dropped).
    pub(crate) fn finish(mut self) -> Vec<Record<'a, H>> {
        self.q.drain(..self.left);
        Vec::from(self.q)
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
        let buf = r.q.as_slices().0.as_ptr();
        while let Some(x) = r.next() {
            if x.index % 3 != 0 {
                r.push(x);
            }
        }
        assert_eq!(r.out_len(), 6);
        r.out_mut(0).index = 100;
        let out = r.finish();
        assert_eq!(indices(&out), [100, 2, 4, 5, 7, 8]);
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
    fn records_not_taken_are_dropped() {
        let mut r = Relay::new(recs(4));
        let first = r.next().unwrap();
        r.push(first);
        assert_eq!(indices(&r.finish()), [0]);
        assert!(Relay::new(recs(0)).finish().is_empty());
    }
}
