//! Slots shared fairly between clients: the bots' thinking slots are handed out in turn by
//! creator, so one client's many games never keep another table's bot waiting for more than a
//! round of turns.
//!
//! A plain semaphore serves its waiters first come, first served: a client that started sixty
//! games of search bots queued sixty moves ahead of every other table's bot at each turn. Here
//! each creator has a queue of its own, and a freed slot goes to the next creator in a ring, so
//! a waiting bot has at most one move of every other creator ahead of it.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// Slots handed out in turn by owner (a game's creator).
pub struct FairSlots {
    state: Mutex<Waiting>,
}

struct Waiting {
    /// Slots nobody holds.
    free: usize,
    /// Waiters by owner, first come first.
    queues: HashMap<String, VecDeque<oneshot::Sender<()>>>,
    /// Owners with waiters, in the order they are served.
    ring: VecDeque<String>,
}

/// A held slot, given back (to the next owner in turn) when dropped.
pub struct FairPermit {
    slots: Arc<FairSlots>,
}

impl Drop for FairPermit {
    fn drop(&mut self) {
        self.slots.release();
    }
}

/// A waiter's end of its turn: a slot handed to a waiter that gave up before taking it is
/// given back, so no slot is lost.
struct Turn {
    receiver: Option<oneshot::Receiver<()>>,
    slots: Arc<FairSlots>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(mut receiver) = self.receiver.take() {
            receiver.close();
            if receiver.try_recv().is_ok() {
                self.slots.release();
            }
        }
    }
}

impl FairSlots {
    /// `slots` slots (at least one).
    pub fn new(slots: usize) -> Arc<FairSlots> {
        Arc::new(FairSlots {
            state: Mutex::new(Waiting {
                free: slots.max(1),
                queues: HashMap::new(),
                ring: VecDeque::new(),
            }),
        })
    }

    /// Waits for a slot in `owner`'s turn.
    pub async fn acquire(self: &Arc<Self>, owner: &str) -> FairPermit {
        let receiver = {
            let mut waiting = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if waiting.free > 0 && waiting.ring.is_empty() {
                waiting.free -= 1;
                return FairPermit {
                    slots: self.clone(),
                };
            }
            let (sender, receiver) = oneshot::channel();
            let queue = waiting.queues.entry(owner.to_owned()).or_default();
            queue.push_back(sender);
            if queue.len() == 1 {
                waiting.ring.push_back(owner.to_owned());
            }
            receiver
        };
        let mut turn = Turn {
            receiver: Some(receiver),
            slots: self.clone(),
        };
        if let Some(receiver) = turn.receiver.as_mut() {
            // The sender lives in the queue until it is used; it is dropped unused only with
            // the slots themselves, and then nothing is left to wait for.
            let _ = receiver.await;
        }
        turn.receiver = None;
        FairPermit {
            slots: self.clone(),
        }
    }

    /// Gives a slot to the next waiting owner in turn, or back to the free ones.
    fn release(&self) {
        let mut waiting = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(owner) = waiting.ring.pop_front() {
            let Some(queue) = waiting.queues.get_mut(&owner) else {
                continue;
            };
            let next = queue.pop_front();
            if queue.is_empty() {
                waiting.queues.remove(&owner);
            } else {
                waiting.ring.push_back(owner);
            }
            // A waiter that gave up has dropped its receiver: the slot goes on to the next.
            if let Some(sender) = next
                && sender.send(()).is_ok()
            {
                return;
            }
        }
        waiting.free += 1;
    }

    /// How many slots nobody holds.
    pub fn free(&self) -> usize {
        self.state.lock().map_or(0, |waiting| waiting.free)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_freed_slot_goes_to_the_next_owner_in_turn() {
        let slots = FairSlots::new(1);
        let held = slots.acquire("many").await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        // Ten waiters of one owner queue before the single waiter of another.
        for (index, owner) in (0..10).map(|i| (i, "many")).chain([(10, "one")]) {
            let (slots, order) = (slots.clone(), order.clone());
            tasks.push(tokio::spawn(async move {
                let _permit = slots.acquire(owner).await;
                order.lock().unwrap().push(index);
                tokio::time::sleep(Duration::from_millis(1)).await;
            }));
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        drop(held);
        for task in tasks {
            task.await.unwrap();
        }
        let order = order.lock().unwrap().clone();
        let position = order.iter().position(|&index| index == 10).unwrap();
        assert!(
            position <= 1,
            "the other owner waited behind {position}: {order:?}"
        );
        assert_eq!(slots.free(), 1);
    }

    #[tokio::test]
    async fn a_waiter_that_gives_up_loses_no_slot() {
        let slots = FairSlots::new(1);
        let held = slots.acquire("a").await;
        let waiting = tokio::spawn({
            let slots = slots.clone();
            async move { slots.acquire("b").await }
        });
        tokio::time::sleep(Duration::from_millis(5)).await;
        waiting.abort();
        let _ = waiting.await;
        drop(held);
        assert_eq!(slots.free(), 1);
        let _again = tokio::time::timeout(Duration::from_secs(1), slots.acquire("c"))
            .await
            .expect("the slot is free again");
    }
}
