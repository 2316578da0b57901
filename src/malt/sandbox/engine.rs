//! The `monty` engine of the sandbox (feature `sandbox`, docs/malt.md, "Answering and checking" and "Single operations").
//!
//! `G` is a host class instance: every method call suspends the interpreter and arrives here
//! as a `FunctionCall` routed by `G`'s id, is answered by [`api::call`] on a private working
//! graph, and resumes the interpreter with the result or the exception. Attribute reads
//! (`G.nodes[...]`) get an `AttributeError`, OS calls a `PermissionError`; dunders are never
//! forwarded, so `len(G)` and `G[n]` fail inside the interpreter.
//!
//! Limits, each ending the run with an error the agent sees:
//! - time: monty's `max_duration` (bytecode time) plus a host check of the total elapsed time
//!   at each suspension, so time spent in host calls counts too → `TimeoutError`;
//! - memory: `monty_alloc::LimitedAllocator`, which must be the `#[global_allocator]` of the
//!   final binary, armed with `set_limit` only while a run is in flight; results of host calls
//!   are estimated and refused before they are built → `MemoryError`. Concurrent runs in one
//!   process (the CLI's `--jobs`) share one budget;
//! - host calls: counted here; the call past the budget aborts the run → `RuntimeError`;
//! - recursion: monty's `max_recursion_depth` → `RecursionError`;
//! - output: stdout is cut at 16 KiB; a result with more than 100,000 items is refused →
//!   `ValueError: result too large`.

use std::borrow::Cow;
use std::sync::Mutex;

use monty::{MontyRun, RunProgress};
use monty_types::{
    CompileOptions, DictPairs, ExcType, ExtFunctionResult, MontyClassInstance, MontyClassType,
    MontyException, MontyObject, MontyUuid, NameLookupResult, PrintWriter, PrintWriterCallback,
    ResourceLimits, ResourceTracker,
};
#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;
#[cfg(target_arch = "wasm32")]
use web_time::Instant;

use super::{Failure, Host, Limits, Outcome};
use crate::malt::api::{ApiError, Exc, Py};

/// The class and instance ids of the first input (MALT's `G`): fixed, so runs are
/// reproducible. Input i has these plus 2·i.
const CLASS_ID: u128 = 0x6d61_6c74_0000_4000_8000_0000_0000_0001;
const G_ID: u128 = 0x6d61_6c74_0000_4000_8000_0000_0000_0002;

fn instance_id(object: usize) -> MontyUuid {
    MontyUuid::from_u128(G_ID + 2 * object as u128)
}

/// The input an instance id names.
fn object_of(id: Option<MontyUuid>, inputs: usize) -> Option<usize> {
    (0..inputs).find(|&i| id == Some(instance_id(i)))
}

fn host_object(class: &str, object: usize) -> MontyObject {
    MontyObject::ClassInstance(Box::new(MontyClassInstance {
        class_type: MontyClassType {
            name: class.into(),
            id: MontyUuid::from_u128(CLASS_ID + 2 * object as u128),
            host_defined: true,
            is_dataclass: false,
            attrs: DictPairs::default(),
        },
        instance_id: instance_id(object),
        attrs: DictPairs::default(),
    }))
}

/// Runs currently holding the allocator armed; the limit is lifted when the last one ends.
static ARMED: Mutex<usize> = Mutex::new(0);

/// Arms `monty_alloc` for the lifetime of a run (a no-op when it is not the global allocator).
struct Armed;

impl Armed {
    fn new(memory: usize) -> Armed {
        if let Ok(mut n) = ARMED.lock() {
            if *n == 0 {
                // The limit is counted from the live bytes of this moment. `set_limit` keeps
                // the lowest total it has ever seen as the base, so a later task holding more
                // (a traffic task's flow table) would be charged to its agent's code and fail
                // before the code ran; only runs that overlap share one base and one budget.
                let live = monty_types::LIVE_MEMORY.load(std::sync::atomic::Ordering::Relaxed);
                monty_types::BASELINE_MEMORY.store(live, std::sync::atomic::Ordering::Relaxed);
                let _ = monty_alloc::set_limit(Some(memory), false);
            }
            *n += 1;
        }
        Armed
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        if let Ok(mut n) = ARMED.lock() {
            *n = n.saturating_sub(1);
            if *n == 0 {
                let _ = monty_alloc::set_limit(None, false);
            }
        }
    }
}

/// Whether the memory limit is enforced in this process (`monty_alloc` is the global allocator).
pub(super) fn memory_limit_enforced() -> bool {
    monty_types::LIVE_MEMORY.load(std::sync::atomic::Ordering::Relaxed) > 0
}

/// Stdout, cut at a byte budget.
struct Output {
    text: String,
    max: usize,
    truncated: bool,
}

impl Output {
    fn push(&mut self, s: &str) {
        if self.truncated {
            return;
        }
        let room = self.max.saturating_sub(self.text.len());
        if s.len() <= room {
            self.text.push_str(s);
            return;
        }
        let mut end = room;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&s[..end]);
        self.truncated = true;
    }
}

impl PrintWriterCallback for Output {
    fn stdout_write(&mut self, output: Cow<'_, str>) -> Result<(), MontyException> {
        self.push(&output);
        Ok(())
    }

    fn stdout_push(&mut self, end: char) -> Result<(), MontyException> {
        self.push(end.encode_utf8(&mut [0; 4]));
        Ok(())
    }
}

fn exc(kind: ExcType, message: impl Into<String>) -> MontyException {
    MontyException::new(kind, Some(message.into()))
}

fn api_exc(e: ApiError) -> MontyException {
    let kind = match e.exc {
        Exc::KeyError => ExcType::KeyError,
        Exc::ValueError => ExcType::ValueError,
        Exc::TypeError => ExcType::TypeError,
        Exc::AttributeError => ExcType::AttributeError,
        Exc::MemoryError => ExcType::MemoryError,
    };
    exc(kind, e.message)
}

/// Converts an interpreter value; containers count towards `items`.
fn to_py(obj: MontyObject, items: &mut usize) -> Py {
    *items += 1;
    let all = |v: Vec<MontyObject>, items: &mut usize| v.into_iter().map(|o| to_py(o, items)).collect();
    match obj {
        MontyObject::None => Py::None,
        MontyObject::Bool(b) => Py::Bool(b),
        MontyObject::Int(i) => Py::Int(i),
        MontyObject::BigInt(b) => Py::Float(b.to_string().parse().unwrap_or(f64::INFINITY)),
        MontyObject::Float(f) => Py::Float(f),
        MontyObject::String(s) => Py::Str(s),
        MontyObject::List(l) | MontyObject::Set(l) | MontyObject::FrozenSet(l) => Py::List(all(l, items)),
        MontyObject::Tuple(t) | MontyObject::NamedTuple { values: t, .. } => Py::Tuple(all(t, items)),
        MontyObject::Dict(d) => {
            Py::Dict(d.into_iter().map(|(k, v)| (to_py(k, items), to_py(v, items))).collect())
        }
        other => Py::Other(other.type_name().to_string()),
    }
}

/// The number of values in an interpreter value, stopping once past `limit`.
fn count(obj: &MontyObject, limit: usize) -> usize {
    let mut n = 1;
    let mut stack = vec![obj];
    while let Some(o) = stack.pop() {
        if n > limit {
            break;
        }
        match o {
            MontyObject::List(l)
            | MontyObject::Set(l)
            | MontyObject::FrozenSet(l)
            | MontyObject::Tuple(l) => {
                n += l.len();
                stack.extend(l);
            }
            MontyObject::Dict(d) => {
                n += 2 * d.len();
                for (k, v) in d {
                    stack.push(k);
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    n
}

fn from_py(v: Py) -> MontyObject {
    match v {
        Py::None | Py::Other(_) => MontyObject::None,
        Py::Bool(b) => MontyObject::Bool(b),
        Py::Int(i) => MontyObject::Int(i),
        Py::Float(f) => MontyObject::Float(f),
        Py::Str(s) => MontyObject::String(s),
        Py::List(l) => MontyObject::List(l.into_iter().map(from_py).collect()),
        Py::Tuple(t) => MontyObject::Tuple(t.into_iter().map(from_py).collect()),
        Py::Dict(d) => MontyObject::Dict(d.into_iter().map(|(k, v)| (from_py(k), from_py(v))).collect()),
    }
}

/// One host call: converts the arguments, runs the method, converts the result.
fn host_call<H: Host>(
    graph: &mut H,
    object: usize,
    name: &str,
    args: Vec<MontyObject>,
    kwargs: Vec<(MontyObject, MontyObject)>,
    tracker: &ResourceTracker,
) -> ExtFunctionResult {
    let mut items = 0;
    let args: Vec<Py> = args.into_iter().map(|a| to_py(a, &mut items)).collect();
    let mut kw = Vec::new();
    for (k, v) in kwargs {
        match k {
            MontyObject::String(k) => kw.push((k, to_py(v, &mut items))),
            other => {
                return exc(ExcType::TypeError, format!("keywords must be str, got {}", other.type_name()))
                    .into();
            }
        }
    }
    let budget = |bytes: usize| {
        tracker
            .check_allocation(bytes)
            .map_err(|e| ApiError { exc: Exc::MemoryError, message: e.to_string() })
    };
    match graph.call(object, name, args, kw, &budget) {
        Ok(v) => from_py(v).into(),
        Err(e) => api_exc(e).into(),
    }
}

/// Runs `program` (the agent's code with the call appended) against `graph`.
pub(super) fn run<H: Host>(program: &str, graph: H, limits: &Limits) -> Outcome<H> {
    let start = Instant::now();
    let mut out = Output { text: String::new(), max: limits.stdout_bytes, truncated: false };
    let mut graph = graph;
    let mut calls = 0u64;
    let mut failure = None;
    let result =
        match MontyRun::new(program.to_string(), "answer.py", inputs(&graph), CompileOptions::default()) {
            Err(e) => {
                failure = Some(Failure::Syntax);
                Err(e)
            }
            Ok(runner) => {
                let _armed = Armed::new(limits.memory);
                drive(runner, &mut graph, limits, &mut out, &mut calls, &mut failure, start)
            }
        };
    let value = match result {
        Ok(obj) if count(&obj, limits.result_items) > limits.result_items => {
            failure = Some(Failure::ResultTooLarge);
            Err(format!("ValueError: result too large (more than {} items)", limits.result_items))
        }
        Ok(obj) => Ok(to_py(obj, &mut 0)),
        Err(e) => {
            failure = failure.or(Some(classify(&e)));
            Err(explain(&e, limits))
        }
    };
    Outcome {
        value,
        failure,
        stdout: out.text,
        stdout_truncated: out.truncated,
        host_calls: calls,
        elapsed_ms: start.elapsed().as_secs_f64() * 1000.0,
        graph,
    }
}

fn classify(e: &MontyException) -> Failure {
    match e.exc_type() {
        ExcType::TimeoutError => Failure::Timeout,
        ExcType::MemoryError => Failure::Memory,
        ExcType::RecursionError => Failure::Recursion,
        _ => Failure::Exception,
    }
}

/// The traceback, with the limit named when one was hit. Limit messages are rewritten
/// without the measured amounts, so the same answer gets the same observation everywhere.
fn explain(e: &MontyException, limits: &Limits) -> String {
    let fixed = match e.exc_type() {
        ExcType::TimeoutError => {
            Some(format!("time limit exceeded (the sandbox allows {} s)", limits.time.as_secs_f64()))
        }
        ExcType::MemoryError => {
            Some(format!("memory limit exceeded (the sandbox allows {} MiB)", limits.memory / (1024 * 1024)))
        }
        ExcType::RecursionError => {
            Some(format!("maximum recursion depth exceeded (the sandbox allows {})", limits.recursion))
        }
        _ => None,
    };
    match fixed {
        Some(message) => {
            MontyException::with_traceback(e.exc_type(), Some(message), e.traceback().to_vec()).to_string()
        }
        None => e.to_string(),
    }
}

/// The message of an attribute read on an object that is no input (none exists today).
const ATTRIBUTE: &str = "host objects have only methods";

fn objects<H: Host>(graph: &H) -> Vec<MontyObject> {
    (0..graph.names().len()).map(|i| host_object(graph.class(i), i)).collect()
}

/// The suspend–resume loop.
fn inputs<H: Host>(graph: &H) -> Vec<String> {
    graph.names().iter().map(|n| n.to_string()).collect()
}

fn drive<H: Host>(
    runner: MontyRun,
    graph: &mut H,
    limits: &Limits,
    out: &mut Output,
    calls: &mut u64,
    failure: &mut Option<Failure>,
    start: Instant,
) -> Result<MontyObject, MontyException> {
    let resource = ResourceLimits {
        max_duration: Some(limits.time),
        max_memory: Some(limits.memory),
        gc_interval: None,
        max_recursion_depth: limits.recursion,
        max_suspensions: usize::try_from(limits.host_calls).unwrap_or(usize::MAX).saturating_add(1),
    };
    let mut progress =
        runner.start(objects(graph), ResourceTracker::new(resource), PrintWriter::Callback(out))?;
    let n = graph.names().len();
    loop {
        let late = start.elapsed() > limits.time;
        let timeout =
            || exc(ExcType::TimeoutError, format!("time limit exceeded: more than {:?} in all", limits.time));
        progress = match progress {
            RunProgress::Complete(value) => return Ok(value),
            RunProgress::FunctionCall(mut call) => {
                *calls += 1;
                if late {
                    *failure = Some(Failure::Timeout);
                    call.abort(timeout(), PrintWriter::Callback(out))?
                } else if *calls > limits.host_calls {
                    *failure = Some(Failure::HostCalls);
                    let e = exc(
                        ExcType::RuntimeError,
                        format!("host call budget {} exhausted", limits.host_calls),
                    );
                    call.abort(e, PrintWriter::Callback(out))?
                } else if let Some(object) = object_of(call.object_id, n) {
                    let (args, kwargs) = (std::mem::take(&mut call.args), std::mem::take(&mut call.kwargs));
                    let result = host_call(graph, object, &call.function_name, args, kwargs, call.tracker());
                    call.resume(result, PrintWriter::Callback(out))?
                } else {
                    let name = call.function_name.clone();
                    call.resume(ExtFunctionResult::NotFound(name), PrintWriter::Callback(out))?
                }
            }
            RunProgress::NameLookup(lookup) => {
                let result = if let Some(id) = lookup.object_id() {
                    let message = object_of(Some(id), n).map_or(ATTRIBUTE, |i| graph.attribute_message(i));
                    NameLookupResult::Error(exc(ExcType::AttributeError, message))
                } else {
                    NameLookupResult::Undefined
                };
                lookup.resume(result, PrintWriter::Callback(out))?
            }
            RunProgress::OsCall(os) => {
                let e = exc(ExcType::PermissionError, "the sandbox has no files, network or environment");
                os.resume(e, PrintWriter::Callback(out))?
            }
            RunProgress::ResolveFutures(f) => f.abort(
                exc(ExcType::RuntimeError, "asyncio is not supported here"),
                PrintWriter::Callback(out),
            )?,
        };
    }
}
