//! Component state that event handlers read and change at its latest value.
//!
//! `use_state`'s handle derefs to the value of the render that made it. Two events that reach
//! the page before it redraws — a field's `change` and a click on Run in one task, as a quick
//! user or a loaded machine delivers them — would each start from that render's copy: the
//! second edit undoes the first, and Run starts with settings the form no longer shows. The
//! Adapt view's search once ran with a stale field that way, and its state hash parted from
//! `netpress adapt`'s. [`use_latest`] keeps the value in one cell every handler shares and
//! redraws the component after each change, so edits compose and a click reads what the user
//! typed last.

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

/// The shared cell and the component's redraw.
pub struct Latest<T> {
    cell: Rc<RefCell<T>>,
    redraw: UseForceUpdateHandle,
}

impl<T> Clone for Latest<T> {
    fn clone(&self) -> Self {
        Latest { cell: self.cell.clone(), redraw: self.redraw.clone() }
    }
}

impl<T: Clone> Latest<T> {
    /// The value now (not the rendered one, when a change is still to be drawn).
    pub fn get(&self) -> T {
        self.cell.borrow().clone()
    }
}

impl<T> Latest<T> {
    /// Reads the value now without cloning it.
    pub fn with<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        f(&self.cell.borrow())
    }

    /// Changes the value in place and redraws the component.
    pub fn update(&self, f: impl FnOnce(&mut T)) {
        f(&mut self.cell.borrow_mut());
        self.redraw.force_update();
    }

    /// Replaces the value and redraws the component.
    pub fn set(&self, value: T) {
        self.update(|v| *v = value);
    }
}

/// The component's [`Latest`] value, made by `init` on its first render.
#[hook]
pub fn use_latest<T: 'static>(init: impl FnOnce() -> T) -> Latest<T> {
    let cell = use_mut_ref(init);
    let redraw = use_force_update();
    Latest { cell, redraw }
}
