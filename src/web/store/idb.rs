//! A minimal async face on IndexedDB (through web-sys, no JavaScript of our own): open the
//! database, and get, put, delete and list string values by string key in named stores.
//!
//! Values are JSON text written by the caller, so the schema lives in Rust types rather than
//! in structured-clone objects. Writes that must land together go through one transaction.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbRequest, IdbTransaction, IdbTransactionMode};

/// The database name and schema version; stores are created on first open.
const DB_NAME: &str = "netpress";
const DB_VERSION: u32 = 1;

/// The object stores of version 1 (out-of-line string keys, string values).
pub const STORES: [&str; 2] = ["runs", "records"];

fn js_error(context: &str, e: JsValue) -> String {
    let detail = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.dyn_ref::<web_sys::DomException>().map(|d| d.message()))
        .unwrap_or_else(|| "unknown error".into());
    format!("{context}: {detail}")
}

/// Resolves with the request's result once it succeeds.
async fn request(req: IdbRequest, context: &str) -> Result<JsValue, String> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let done = req.clone();
        let on_success = Closure::once_into_js(move || {
            let _ = resolve.call1(&JsValue::NULL, &done.result().unwrap_or(JsValue::UNDEFINED));
        });
        let failed = req.clone();
        let on_error = Closure::once_into_js(move || {
            let error = failed.error().ok().flatten().map(JsValue::from).unwrap_or(JsValue::NULL);
            let _ = reject.call1(&JsValue::NULL, &error);
        });
        req.set_onsuccess(Some(on_success.unchecked_ref()));
        req.set_onerror(Some(on_error.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(|e| js_error(context, e))
}

/// Resolves when a read-write transaction has committed.
async fn committed(tx: &IdbTransaction, context: &str) -> Result<(), String> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let on_complete = Closure::once_into_js(move || {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let failed = tx.clone();
        let fail = Closure::once_into_js(move || {
            let error = failed.error().map(JsValue::from).unwrap_or(JsValue::NULL);
            let _ = reject.call1(&JsValue::NULL, &error);
        });
        tx.set_oncomplete(Some(on_complete.unchecked_ref()));
        tx.set_onerror(Some(fail.unchecked_ref()));
        tx.set_onabort(Some(fail.unchecked_ref()));
    });
    JsFuture::from(promise).await.map(|_| ()).map_err(|e| js_error(context, e))
}

/// Opens (and on first use creates) the database.
pub async fn open() -> Result<IdbDatabase, String> {
    let context = "could not open the results database";
    let factory = gloo::utils::window()
        .indexed_db()
        .ok()
        .flatten()
        .ok_or_else(|| format!("{context}: this browser has no IndexedDB (private mode?)"))?;
    let open = factory.open_with_u32(DB_NAME, DB_VERSION).map_err(|e| js_error(context, e))?;
    let upgrading = open.clone();
    let on_upgrade = Closure::once_into_js(move || {
        if let Ok(db) = upgrading.result().and_then(|r| r.dyn_into::<IdbDatabase>()) {
            let existing = db.object_store_names();
            for store in STORES {
                if !existing.contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        }
    });
    open.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
    let db = request(open.into(), context).await?;
    db.dyn_into::<IdbDatabase>().map_err(|e| js_error(context, e))
}

fn transaction(
    db: &IdbDatabase,
    stores: &[&str],
    mode: IdbTransactionMode,
) -> Result<IdbTransaction, String> {
    let names = js_sys::Array::new();
    for store in stores {
        names.push(&JsValue::from_str(store));
    }
    db.transaction_with_str_sequence_and_mode(&names, mode)
        .map_err(|e| js_error("could not start a transaction", e))
}

/// The value stored under `key`, if any.
pub async fn get(db: &IdbDatabase, store: &str, key: &str) -> Result<Option<String>, String> {
    let tx = transaction(db, &[store], IdbTransactionMode::Readonly)?;
    let os = tx.object_store(store).map_err(|e| js_error("no such store", e))?;
    let req = os.get(&JsValue::from_str(key)).map_err(|e| js_error("could not read", e))?;
    Ok(request(req, "could not read").await?.as_string())
}

/// Every value of a store, in key order.
pub async fn get_all(db: &IdbDatabase, store: &str) -> Result<Vec<String>, String> {
    let tx = transaction(db, &[store], IdbTransactionMode::Readonly)?;
    let os = tx.object_store(store).map_err(|e| js_error("no such store", e))?;
    let req = os.get_all().map_err(|e| js_error("could not read", e))?;
    let values: js_sys::Array = request(req, "could not read").await?.unchecked_into();
    Ok(values.iter().filter_map(|v| v.as_string()).collect())
}

/// One write of a batch: put a value, or delete the key when `value` is `None`.
pub struct Write<'a> {
    pub store: &'a str,
    pub key: &'a str,
    pub value: Option<&'a str>,
}

/// Applies writes atomically: all land or none does.
pub async fn write_all(db: &IdbDatabase, writes: &[Write<'_>]) -> Result<(), String> {
    if writes.is_empty() {
        return Ok(());
    }
    let context = "could not save";
    let mut stores: Vec<&str> = writes.iter().map(|w| w.store).collect();
    stores.sort_unstable();
    stores.dedup();
    let tx = transaction(db, &stores, IdbTransactionMode::Readwrite)?;
    for w in writes {
        let os = tx.object_store(w.store).map_err(|e| js_error(context, e))?;
        let key = JsValue::from_str(w.key);
        let queued = match w.value {
            Some(value) => os.put_with_key(&JsValue::from_str(value), &key),
            None => os.delete(&key),
        };
        queued.map_err(|e| js_error(context, e))?;
    }
    committed(&tx, context).await
}
