//! `ReadAhead`: an iterator run on a thread of its own, handing its items over in batches,
//! so that producing the items (reading and decoding files, merging sorted runs) and
//! consuming them (writing a storefile) use two cores instead of one. The tools' bulk paths
//! are such two-stage pipelines; on the 2-core machine of `docs/benchmarks.md` an import
//! spent a third of its single thread decoding and the rest writing.
//!
//! Memory is bounded: at most [`QUEUE`] batches of [`BATCH`] items wait between the two
//! threads. The producer thread ends when its iterator ends, or when the consumer drops the
//! `ReadAhead` (its next hand-over fails); dropping waits for it, so nothing outlives the
//! adapter. Items come out in the order the iterator made them; an `Err` item is passed on
//! like any other (the iterator decides whether anything follows it).

use std::sync::mpsc::{Receiver, SyncSender};
use std::thread::JoinHandle;

/// Items per hand-over.
const BATCH: usize = 4096;
/// Hand-overs that may wait for the consumer.
const QUEUE: usize = 4;

/// The consumer's end of an iterator running on its own thread.
pub(crate) struct ReadAhead<T> {
    rx: Receiver<Vec<T>>,
    batch: std::vec::IntoIter<T>,
    thread: Option<JoinHandle<()>>,
}

impl<T: Send + 'static> ReadAhead<T> {
    /// Starts `items` on a thread named `name`. Fails only when no thread can be made.
    pub(crate) fn spawn<I>(name: &str, items: I) -> std::io::Result<Self>
    where
        I: Iterator<Item = T> + Send + 'static,
    {
        Self::spawn_batched(name, items, BATCH)
    }

    /// [`ReadAhead::spawn`] with `batch` items per hand-over (at least one), for items
    /// that are batches themselves.
    pub(crate) fn spawn_batched<I>(name: &str, items: I, batch: usize) -> std::io::Result<Self>
    where
        I: Iterator<Item = T> + Send + 'static,
    {
        let batch = batch.max(1);
        let (tx, rx): (SyncSender<Vec<T>>, _) = std::sync::mpsc::sync_channel(QUEUE);
        let produce = move || {
            let mut items = items;
            loop {
                let handed: Vec<T> = items.by_ref().take(batch).collect();
                let last = handed.len() < batch;
                if handed.is_empty() || tx.send(handed).is_err() || last {
                    return;
                }
            }
        };
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(produce)?;
        Ok(ReadAhead {
            rx,
            batch: Vec::new().into_iter(),
            thread: Some(thread),
        })
    }
}

impl<T> Iterator for ReadAhead<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        loop {
            if let Some(item) = self.batch.next() {
                return Some(item);
            }
            // `Err`: the producer ended (its sender dropped) and everything was received.
            self.batch = self.rx.recv().ok()?.into_iter();
        }
    }
}

impl<T> Drop for ReadAhead<T> {
    fn drop(&mut self) {
        // Dropping the receiver fails the producer's next send, ending it.
        let (_, closed) = std::sync::mpsc::sync_channel(0);
        drop(std::mem::replace(&mut self.rx, closed));
        if let Some(t) = self.thread.take() {
            // A panic in the producer is a bug; let it surface as one (not while the
            // consumer is already unwinding).
            if let Err(panic) = t.join()
                && !std::thread::panicking()
            {
                std::panic::resume_unwind(panic);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn passes_every_item_in_order() {
        let n = BATCH * 3 + 17;
        let got: Vec<usize> = ReadAhead::spawn("t", 0..n).unwrap().collect();
        assert_eq!(got, (0..n).collect::<Vec<_>>());
        for batch in [0, 1, 3] {
            let got: Vec<usize> = ReadAhead::spawn_batched("t", 0..10, batch)
                .unwrap()
                .collect();
            assert_eq!(got, (0..10).collect::<Vec<_>>());
        }
        assert_eq!(ReadAhead::spawn("t", 0..0usize).unwrap().count(), 0);
    }

    #[test]
    fn a_consumer_that_stops_early_ends_the_producer() {
        // An endless producer: only the dropped consumer can end it.
        let mut r = ReadAhead::spawn("t", 0u64..).unwrap();
        assert_eq!(r.next(), Some(0));
        drop(r);
    }
}
