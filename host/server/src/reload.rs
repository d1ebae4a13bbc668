//! Hot reload: a running server picks up new or edited ruleset components, maps and variants
//! without a restart. A file watcher on the rulesets and maps folders (and `SIGHUP`, for folders
//! a watcher cannot see into) asks the [`LiveOffer`] to reload once the files have been quiet
//! for a moment, so a component still being written or an editor's save in several steps is read
//! once, whole. Games in progress are not touched: they are pinned to the ruleset version, map
//! text and options they started with.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use notify::{EventKind, RecursiveMode, Watcher as _};
use tokio::sync::mpsc;

use super::offer::LiveOffer;

/// How long the files must be quiet before a reload.
pub const QUIET_FOR: Duration = Duration::from_millis(300);

/// Watches the offer's folders and reloads it after changes, for as long as the server runs.
/// Fails when the watcher cannot be set up (the server then runs without hot reload).
pub fn watch(offer: Arc<LiveOffer>) -> anyhow::Result<()> {
    let (changed, mut changes) = mpsc::unbounded_channel::<()>();
    let mut watcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
            Ok(event) if is_change(&event.kind) => {
                let _ = changed.send(());
            }
            Ok(_) => {}
            Err(error) => tracing::warn!("file watcher: {error}"),
        })
        .context("failed to start the file watcher")?;
    watch_folder(&mut watcher, offer.maps_dir(), RecursiveMode::Recursive)?;
    if let Some(dir) = offer.rulesets_dir() {
        watch_folder(&mut watcher, dir, RecursiveMode::NonRecursive)?;
    }
    tokio::spawn(async move {
        // The watcher lives as long as this task: dropping it would stop the events.
        let _watcher = watcher;
        while changes.recv().await.is_some() {
            // Wait until nothing has changed for a moment, then reload once.
            loop {
                tokio::time::sleep(QUIET_FOR).await;
                let mut more = false;
                while changes.try_recv().is_ok() {
                    more = true;
                }
                if !more {
                    break;
                }
            }
            reload(&offer).await;
        }
    });
    Ok(())
}

/// Reloads on `SIGHUP`, the usual way to tell a server to reread its files.
pub fn reload_on_hangup(offer: Arc<LiveOffer>) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut hangups = signal(SignalKind::hangup()).context("failed to listen for SIGHUP")?;
        tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                reload(&offer).await;
            }
        });
    }
    #[cfg(not(unix))]
    let _ = offer;
    Ok(())
}

async fn reload(offer: &LiveOffer) {
    match offer.reload().await {
        Ok(changes) if changes.is_empty() => tracing::debug!("reload: nothing changed"),
        Ok(changes) => tracing::info!("reloaded: {}", changes.join("; ")),
        Err(error) => tracing::warn!("reload failed: {error:#}"),
    }
}

fn watch_folder(
    watcher: &mut notify::RecommendedWatcher,
    dir: &Path,
    mode: RecursiveMode,
) -> anyhow::Result<()> {
    watcher
        .watch(dir, mode)
        .with_context(|| format!("failed to watch {}", dir.display()))
}

/// Whether an event can change what a file holds. Reading a file (which a reload does) and
/// changing only its metadata do not count, so a reload never sets off another.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any | EventKind::Other => true,
        EventKind::Modify(notify::event::ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(notify::event::AccessKind::Close(notify::event::AccessMode::Write)) => {
            true
        }
        EventKind::Access(_) => false,
    }
}
