//! The store connection, shared by everything that uses it: empty until the store is
//! connected (it may come up after the server, see `AppState::connect_store`), then set once.

use std::sync::{Arc, RwLock};

use crate::store::Store;

/// A shared, late-filled handle on the [`Store`]. Cloning shares the slot.
#[derive(Clone, Default)]
pub struct StoreSlot(Arc<RwLock<Option<Store>>>);

impl StoreSlot {
    /// The store, if connected.
    pub fn get(&self) -> Option<Store> {
        // A poisoned slot still holds a valid `Option<Store>` (a clone of a pool handle is
        // written whole), so reading through the poison is safe.
        match self.0.read() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Attaches the store (every clone of the slot sees it).
    pub fn set(&self, store: Store) {
        match self.0.write() {
            Ok(mut s) => *s = Some(store),
            Err(poisoned) => *poisoned.into_inner() = Some(store),
        }
    }
}
