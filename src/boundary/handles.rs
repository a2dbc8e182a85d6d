//! Long-lived objects behind integer handles. JS keeps only the number; the object lives here.
//! A handle of another kind, an unknown or a freed handle is `E_ARGUMENT`, never a dangling
//! pointer — and after the JS layer replaces a failed instance, old numbers simply name nothing.

use crate::error::{Error, ErrorCode, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// One kind of object (each kind has its own table).
pub struct Handles<T> {
    next: u32,
    items: HashMap<u32, Rc<T>>,
}

impl<T> Default for Handles<T> {
    fn default() -> Self {
        Handles {
            next: 1,
            items: HashMap::new(),
        }
    }
}

impl<T> Handles<T> {
    fn insert(&mut self, item: T) -> u32 {
        let id = self.next;
        self.next = self.next.wrapping_add(1).max(1);
        self.items.insert(id, Rc::new(item));
        id
    }
}

/// A thread-local table of one kind of object.
pub struct Table<T: 'static> {
    pub kind: &'static str,
    pub cell: &'static std::thread::LocalKey<RefCell<Handles<T>>>,
}

impl<T: 'static> Table<T> {
    /// Store an object; its new handle.
    pub fn insert(&self, item: T) -> Result<u32> {
        self.cell
            .with(|h| h.try_borrow_mut().map(|mut h| h.insert(item)))
            .map_err(|_| busy(self.kind))
    }

    /// The object of a handle (shared; the borrow of the table ends before this returns).
    pub fn get(&self, id: u32) -> Result<Rc<T>> {
        self.cell
            .with(|h| h.try_borrow().ok().and_then(|h| h.items.get(&id).cloned()))
            .ok_or_else(|| freed(self.kind))
    }

    /// Forget a handle (the object is dropped once no running call holds it).
    pub fn remove(&self, id: u32) {
        let removed = self.cell.with(|h| {
            h.try_borrow_mut()
                .ok()
                .and_then(|mut h| h.items.remove(&id))
        });
        drop(removed);
    }
}

/// The error of a table borrowed while in use (not generic: one copy in the wasm).
fn busy(kind: &str) -> Error {
    Error::internal(format!("the {kind} table is busy"))
}

/// The error of a handle that names no object (not generic: one copy in the wasm).
fn freed(kind: &str) -> Error {
    Error::new(
        ErrorCode::Argument,
        format!(
            "this {kind} was freed or belongs to a memcore instance that failed; create a new one"
        ),
    )
}
