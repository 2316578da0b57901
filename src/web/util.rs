//! Small browser helpers the views share: clock, randomness for "random" buttons, clipboard,
//! downloads, yielding to the event loop, and number formatting.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Milliseconds from `performance.now()`: monotonic, for latency and ETA.
pub fn now_ms() -> f64 {
    gloo::utils::window().performance().map(|p| p.now()).unwrap_or_default()
}

/// Wall-clock milliseconds since the epoch, for "saved at" stamps.
pub fn epoch_ms() -> f64 {
    js_sys::Date::now()
}

/// A random number below `n` from the page's own randomness. It picks *which* task a
/// "random" button opens; the task itself is still fully determined by its id.
pub fn random_below(n: u64) -> u64 {
    (js_sys::Math::random() * n as f64) as u64 % n.max(1)
}

/// Copies text to the clipboard; `Err` carries a message for the user.
pub async fn copy_text(text: &str) -> Result<(), String> {
    let clipboard = gloo::utils::window().navigator().clipboard();
    JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(|_| "the browser refused the clipboard; select the text and copy it by hand".to_string())
}

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    let fail = |_| format!("could not prepare {name} for download");
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let document = gloo::utils::document();
    let anchor: web_sys::HtmlAnchorElement = document.create_element("a").map_err(fail)?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    // Revoking at once can cancel the download in some browsers; a later tick is safe.
    gloo::timers::callback::Timeout::new(10_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
    Ok(())
}

/// The text of a file the user picked.
pub async fn read_file(file: &web_sys::File) -> Result<String, String> {
    let text = JsFuture::from(file.text()).await.map_err(|_| format!("could not read {}", file.name()))?;
    text.as_string().ok_or_else(|| format!("{} is not text", file.name()))
}

/// Lets the browser render and handle input before more work runs. A `MessageChannel`
/// message is a new task without the 4 ms clamp nested `setTimeout(0)` calls get.
pub async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let Ok(channel) = web_sys::MessageChannel::new() else {
            let _ = resolve.call0(&JsValue::NULL);
            return;
        };
        let port = channel.port2();
        let on_message = Closure::once_into_js(move || {
            let _ = resolve.call0(&JsValue::NULL);
        });
        channel.port1().set_onmessage(Some(on_message.unchecked_ref()));
        let _ = port.post_message(&JsValue::NULL);
    });
    let _ = JsFuture::from(promise).await;
}

/// Splits long work into slices of about `budget_ms`, yielding between them so the page
/// stays responsive.
pub struct Slicer {
    budget_ms: f64,
    since: f64,
}

impl Slicer {
    pub fn new(budget_ms: f64) -> Self {
        Slicer { budget_ms, since: now_ms() }
    }

    /// Yields if the current slice has used its budget.
    pub async fn tick(&mut self) {
        if now_ms() - self.since >= self.budget_ms {
            yield_now().await;
            self.since = now_ms();
        }
    }
}

/// Waits `ms` milliseconds.
pub async fn sleep(ms: u32) {
    gloo::timers::future::TimeoutFuture::new(ms).await;
}

/// A count with its noun: `1 turn`, `3 turns`, `0 turns` (nouns taking a plain `s`).
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// `0.8123` as `81.2%`.
pub fn pct(rate: f64) -> String {
    format!("{:.1}%", rate * 100.0)
}

/// A duration for people: `850 ms`, `12.3 s`, `4 min 05 s`.
pub fn duration(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else if ms < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        let s = (ms / 1000.0).round() as u64;
        format!("{} min {:02} s", s / 60, s % 60)
    }
}

/// A local date and time for an epoch-milliseconds stamp.
pub fn date_time(epoch_ms: f64) -> String {
    let d = js_sys::Date::new(&JsValue::from_f64(epoch_ms));
    format!(
        "{}-{:02}-{:02} {:02}:{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date(),
        d.get_hours(),
        d.get_minutes()
    )
}

/// The value of the input, select or textarea an event came from.
pub fn event_value(e: &web_sys::Event) -> String {
    let Some(target) = e.target() else { return String::new() };
    if let Some(input) = target.dyn_ref::<web_sys::HtmlInputElement>() {
        input.value()
    } else if let Some(select) = target.dyn_ref::<web_sys::HtmlSelectElement>() {
        select.value()
    } else if let Some(area) = target.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        area.value()
    } else {
        String::new()
    }
}

/// Whether the checkbox an event came from is checked.
pub fn event_checked(e: &web_sys::Event) -> bool {
    e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).is_some_and(|i| i.checked())
}
