//! Timeouts for host calls (behaviour §1.7: every host call of a turn has a timeout, so a callback
//! that never settles cannot hold a user's lock forever). The core has no clock of its own: the
//! host's [`Timer`] decides when a deadline has passed, so native tests drive it by hand.
//!
//! [`Timed`] wraps a host object and races every async call against `timer.sleep(ms)`; the call
//! that loses is dropped, which cancels it where the host supports that (the JS binding aborts a
//! model request's `AbortSignal`). A timed-out call is `E_HOST` with
//! `details: { operation, timedOut: true, transient: true, timeoutMs }`.

use super::{
    Completion, CompletionRequest, LanguageModel, Notice, Notifier, ProfileStore, StoredText,
    WriteOptions,
};
use crate::error::{Error, ErrorCode, Result};
use std::future::{poll_fn, Future};
use std::pin::{pin, Pin};
use std::task::Poll;

/// The host's timer.
pub trait Timer {
    /// Completes after `ms` milliseconds. Dropping the future cancels the timer.
    async fn sleep(&self, ms: u64);

    /// A wait the core asks for itself (the backoff between version-conflict retries). The
    /// default sleeps; a timer that never fires ([`NoTimer`]) does not wait at all.
    async fn pause(&self, ms: u64) {
        self.sleep(ms).await;
    }
}

/// A timer that never fires: host calls wait as long as they take (for hosts that enforce
/// their own deadlines, and for tests that are not about timeouts).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTimer;

impl Timer for NoTimer {
    async fn sleep(&self, _ms: u64) {
        std::future::pending::<()>().await;
    }

    async fn pause(&self, _ms: u64) {}
}

/// Run `future` until it completes or `timer` fires after `ms`: `None` when the timer won (the
/// future is dropped). The future is polled first, so one that is ready never times out.
pub async fn within<F: Future>(timer: &impl Timer, ms: u64, future: F) -> Option<F::Output> {
    race(pin!(future), pin!(timer.sleep(ms))).await
}

/// [`within`]'s race, generic over the output only: the host call and the timer are polled
/// through `dyn`, so every host call shares one copy of the race and of the timer's future in
/// the wasm instead of inlining both into each call.
async fn race<O>(
    mut future: Pin<&mut dyn Future<Output = O>>,
    mut deadline: Pin<&mut dyn Future<Output = ()>>,
) -> Option<O> {
    poll_fn(|cx| {
        if let Poll::Ready(output) = future.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        if deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await
}

/// A host object whose every async call has a deadline of `ms` milliseconds.
pub struct Timed<'a, H, T> {
    /// The host object.
    pub host: &'a H,
    /// The host's timer.
    pub timer: &'a T,
    /// The deadline of each call.
    pub ms: u64,
}

impl<H, T: Timer> Timed<'_, H, T> {
    /// Run one host call of `operation` against the deadline (the entry store's impl lives
    /// with its trait, in [`crate::entries::store`]).
    pub(crate) async fn run<R>(
        &self,
        operation: &str,
        call: impl Future<Output = Result<R>>,
    ) -> Result<R> {
        within(self.timer, self.ms, call)
            .await
            .unwrap_or_else(|| Err(timed_out(operation, self.ms)))
    }
}

/// The error of a host call that did not settle within its deadline.
pub fn timed_out(operation: &str, ms: u64) -> Error {
    Error::new(
        ErrorCode::Host,
        format!("{operation} did not answer within {ms} ms"),
    )
    .with_details(serde_json::json!({
        "operation": operation,
        "timedOut": true,
        "transient": true,
        "timeoutMs": ms,
    }))
}

impl<H: ProfileStore, T: Timer> ProfileStore for Timed<'_, H, T> {
    async fn read(&self, path: &str) -> Result<Option<StoredText>> {
        self.run("storage.read", self.host.read(path)).await
    }
    async fn write(
        &self,
        path: &str,
        text: &str,
        options: &WriteOptions,
    ) -> Result<Option<String>> {
        self.run("storage.write", self.host.write(path, text, options))
            .await
    }
    async fn remove(&self, path: &str) -> Result<()> {
        self.run("storage.remove", self.host.remove(path)).await
    }
    async fn ensure_root(&self, root_folder: &str) -> Result<()> {
        self.run("storage.ensureRoot", self.host.ensure_root(root_folder))
            .await
    }
    async fn remove_folder(&self, folder: &str) -> Result<bool> {
        self.run("storage.removeFolder", self.host.remove_folder(folder))
            .await
    }
}

impl<H: LanguageModel, T: Timer> LanguageModel for Timed<'_, H, T> {
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion> {
        self.run("model.complete", self.host.complete(request))
            .await
    }
}

impl<H: Notifier, T: Timer> Notifier for Timed<'_, H, T> {
    async fn on_notice(&self, notice: &Notice) -> Result<()> {
        self.run("onNotice", self.host.on_notice(notice)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::task::{Context, Wake, Waker};

    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }

    fn poll_once<F: Future>(future: F) -> Poll<F::Output> {
        let waker = Waker::from(Arc::new(Noop));
        let mut cx = Context::from_waker(&waker);
        pin!(future).as_mut().poll(&mut cx)
    }

    struct FiresAtOnce;
    impl Timer for FiresAtOnce {
        async fn sleep(&self, _ms: u64) {}
    }

    #[test]
    fn a_ready_call_wins_over_a_fired_timer() {
        assert_eq!(
            poll_once(within(&FiresAtOnce, 5, async { 7 })),
            Poll::Ready(Some(7))
        );
    }

    #[test]
    fn a_call_that_never_settles_times_out() {
        let never = std::future::pending::<u8>();
        assert_eq!(poll_once(within(&FiresAtOnce, 5, never)), Poll::Ready(None));
        assert_eq!(
            poll_once(within(&NoTimer, 5, std::future::pending::<u8>())),
            Poll::Pending
        );
    }

    #[test]
    fn the_timeout_error_names_the_operation_and_is_transient() {
        let error = timed_out("model.complete", 60_000);
        assert_eq!(error.code, ErrorCode::Host);
        assert_eq!(
            error.message,
            "model.complete did not answer within 60000 ms"
        );
        let details = error.details.unwrap_or_default();
        assert_eq!(details["transient"], true);
        assert_eq!(details["timedOut"], true);
    }
}
