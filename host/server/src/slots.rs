//! Slots for ruleset work (WebAssembly calls, compiling components, checking and drawing maps) on
//! tokio's blocking thread pool. Every such piece of work takes a slot first, so however many
//! requests, bots and reloads ask at once, at most [`HubConfig::ruleset_calls`] of them run and
//! the rest wait their turn; none runs on the async reactor.
//!
//! [`HubConfig::ruleset_calls`]: super::games::HubConfig::ruleset_calls

use std::sync::Arc;

use anyhow::Context;
use tokio::sync::Semaphore;

/// A shared count of slots for blocking ruleset work; clones share the same slots.
#[derive(Clone, Debug)]
pub struct CallSlots(Arc<Semaphore>);

impl CallSlots {
    /// `slots` pieces of work at once (at least one).
    pub fn new(slots: usize) -> CallSlots {
        CallSlots(Arc::new(Semaphore::new(slots.max(1))))
    }

    /// Runs `work` on the blocking pool once a slot is free. The slot is held by the work itself,
    /// so a request that gives up waiting does not free a slot its work still uses.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> anyhow::Result<T> {
        let slot = self
            .0
            .clone()
            .acquire_owned()
            .await
            .context("the server is shutting down")?;
        tokio::task::spawn_blocking(move || {
            let _slot = slot;
            work()
        })
        .await
        .context("a ruleset call failed")
    }

    /// How many slots are free now.
    pub fn available(&self) -> usize {
        self.0.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::CallSlots;

    /// Work beyond the slots waits for one: with one slot, the second piece of work starts only
    /// after the first has ended, and a caller that gives up waiting frees nothing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_beyond_the_slots_waits_for_one() {
        let slots = CallSlots::new(1);
        let (release, held) = mpsc::channel::<()>();
        let first = tokio::spawn({
            let slots = slots.clone();
            async move { slots.run(move || held.recv().is_ok()).await.unwrap() }
        });
        while slots.available() != 0 {
            tokio::task::yield_now().await;
        }
        let waiting = tokio::time::timeout(Duration::from_millis(100), slots.run(|| ())).await;
        assert!(
            waiting.is_err(),
            "a second piece of work ran beside the first"
        );
        assert_eq!(
            slots.available(),
            0,
            "the slot stays with the work still running"
        );
        release.send(()).unwrap();
        assert!(first.await.unwrap());
        slots.run(|| ()).await.unwrap();
        assert_eq!(slots.available(), 1);
    }
}
