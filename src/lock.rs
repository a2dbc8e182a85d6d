//! Per-key async FIFO locks: concurrent turns of the same user in one `ContextMemory` run one
//! after the other instead of racing to the store (versions still protect against other
//! processes), and the tool calls of one `MemoryTools` run in call order. Single-threaded by
//! design (wasm has one thread and the host futures are not `Send`), FIFO, and without crates.
//!
//! No `RefCell` borrow is ever held across an `.await` or a call into other code; a borrow that
//! fails anyway (it cannot in single-threaded use) degrades gracefully instead of panicking.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// The state of one user's lock.
#[derive(Default)]
struct Slot {
    /// The ticket that owns the lock.
    owner: u64,
    /// Tickets waiting, first come first served, with the waker of their last poll.
    waiters: VecDeque<(u64, Option<Waker>)>,
}

#[derive(Default)]
struct State {
    next_ticket: u64,
    /// A user is present exactly while someone owns their lock.
    slots: HashMap<String, Slot>,
}

/// Per-user FIFO locks.
#[derive(Default)]
pub(crate) struct UserLocks {
    state: RefCell<State>,
}

impl UserLocks {
    /// Wait for the lock of `user_id`; it is released when the guard is dropped.
    pub(crate) fn lock<'a>(&'a self, user_id: &str) -> Acquire<'a> {
        Acquire {
            locks: self,
            user_id: user_id.to_string(),
            ticket: None,
            done: false,
        }
    }

    /// Hand the lock of `user_id`, owned by `ticket`, to the next waiter, or free it.
    fn release(&self, user_id: &str, ticket: u64) {
        let Ok(mut state) = self.state.try_borrow_mut() else {
            return;
        };
        let Some(slot) = state.slots.get_mut(user_id) else {
            return;
        };
        if slot.owner != ticket {
            slot.waiters.retain(|(waiting, _)| *waiting != ticket);
            return;
        }
        let next = slot.waiters.pop_front();
        let waker = match next {
            Some((next_ticket, waker)) => {
                slot.owner = next_ticket;
                waker
            }
            None => {
                state.slots.remove(user_id);
                None
            }
        };
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The future returned by [`UserLocks::lock`].
pub(crate) struct Acquire<'a> {
    locks: &'a UserLocks,
    user_id: String,
    ticket: Option<u64>,
    done: bool,
}

impl<'a> Future for Acquire<'a> {
    type Output = UserGuard<'a>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<UserGuard<'a>> {
        let this = &mut *self;
        let Ok(mut state) = this.locks.state.try_borrow_mut() else {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        };
        let ticket = match this.ticket {
            Some(ticket) => ticket,
            None => {
                let ticket = state.next_ticket;
                state.next_ticket = state.next_ticket.wrapping_add(1);
                this.ticket = Some(ticket);
                match state.slots.get_mut(&this.user_id) {
                    Some(slot) => slot.waiters.push_back((ticket, None)),
                    None => {
                        state.slots.insert(
                            this.user_id.clone(),
                            Slot {
                                owner: ticket,
                                waiters: VecDeque::new(),
                            },
                        );
                    }
                }
                ticket
            }
        };
        let Some(slot) = state.slots.get_mut(&this.user_id) else {
            // Unreachable while our ticket is registered; start over rather than hang.
            this.ticket = None;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        };
        if slot.owner == ticket {
            this.done = true;
            return Poll::Ready(UserGuard {
                locks: this.locks,
                user_id: this.user_id.clone(),
                ticket,
            });
        }
        if let Some(entry) = slot.waiters.iter_mut().find(|(t, _)| *t == ticket) {
            entry.1 = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl Drop for Acquire<'_> {
    /// A waiter that is dropped (cancelled) leaves the queue, or passes on a lock it was handed
    /// but never took.
    fn drop(&mut self) {
        if let (Some(ticket), false) = (self.ticket, self.done) {
            self.locks.release(&self.user_id, ticket);
        }
    }
}

/// Holds a user's lock until dropped.
pub(crate) struct UserGuard<'a> {
    locks: &'a UserLocks,
    user_id: String,
    ticket: u64,
}

impl Drop for UserGuard<'_> {
    fn drop(&mut self) {
        self.locks.release(&self.user_id, self.ticket);
    }
}
