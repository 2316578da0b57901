//! The server's sessions: HTTP sessions by `episode_id` in 16 shards, and one count over every
//! transport so the process keeps to its maximum.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::env::{EnvError, Reason, Session};

const SHARDS: usize = 16;

/// A session and when it was last used (for idle reaping).
pub struct Entry {
    pub session: Session,
    pub last_used: Instant,
}

pub type Shared = Arc<Mutex<Entry>>;

/// Every session of the process: the HTTP ones stored here, the WebSocket ones counted only
/// (each lives in its connection).
pub struct Sessions {
    shards: Vec<Mutex<BTreeMap<String, Shared>>>,
    count: AtomicUsize,
    max: usize,
}

/// Locks a mutex, carrying on after a panic elsewhere poisoned it (a step's panic is caught
/// and its session dropped; the map itself stays consistent).
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Sessions {
    pub fn new(max: usize) -> Self {
        Sessions {
            shards: (0..SHARDS).map(|_| Mutex::new(BTreeMap::new())).collect(),
            count: AtomicUsize::new(0),
            max,
        }
    }

    /// Sessions open over all transports.
    pub fn active(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    pub fn max(&self) -> usize {
        self.max
    }

    /// Counts one more session, or refuses at the maximum.
    pub fn reserve(&self) -> Result<(), EnvError> {
        self.count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < self.max).then_some(n + 1))
            .map(|_| ())
            .map_err(|n| {
                EnvError::new(Reason::Sessions, format!("{n} sessions are open, the most this server allows"))
            })
    }

    /// Counts one session fewer.
    pub fn release(&self) {
        let _ = self.count.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    }

    fn shard(&self, id: &str) -> &Mutex<BTreeMap<String, Shared>> {
        // FNV-1a: a stable spread of ids over the shards (no need for a keyed hash here).
        let h = id
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        &self.shards[(h % SHARDS as u64) as usize]
    }

    pub fn get(&self, id: &str) -> Option<Shared> {
        lock(self.shard(id)).get(id).cloned()
    }

    /// Stores a session under its id, replacing any session of that id; true when it replaced
    /// one (a caller that reserved a count for a new session then gives it back).
    pub fn insert(&self, session: Session) -> bool {
        let id = session.episode_id().to_string();
        let entry = Arc::new(Mutex::new(Entry { session, last_used: Instant::now() }));
        lock(self.shard(&id)).insert(id, entry).is_some()
    }

    /// Whether a session of this id is open.
    pub fn contains(&self, id: &str) -> bool {
        lock(self.shard(id)).contains_key(id)
    }

    pub fn remove(&self, id: &str) -> bool {
        let removed = lock(self.shard(id)).remove(id).is_some();
        if removed {
            self.release();
        }
        removed
    }

    /// Closes the HTTP sessions idle for longer than `idle`; returns how many.
    pub fn reap(&self, idle: Duration) -> usize {
        let now = Instant::now();
        let mut reaped = 0;
        for shard in &self.shards {
            let mut map = lock(shard);
            let before = map.len();
            map.retain(|_, e| e.try_lock().map_or(true, |e| now.duration_since(e.last_used) <= idle));
            reaped += before - map.len();
        }
        for _ in 0..reaped {
            self.release();
        }
        reaped
    }
}
