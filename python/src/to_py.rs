//! A serde serializer that builds Python objects directly: the objects `json.loads` would make
//! of the value's JSON (dicts in field order, lists, str, int, float, bool, None), without the
//! JSON text or a `serde_json::Value` tree in between. A step's answer crosses the boundary on
//! every turn of a training loop, and the intermediate tree (a `String` and a map node for
//! every field) cost about as much as building the dict itself.

use std::fmt::Display;

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde::ser::{self, Serialize};

/// Serializes `value` into a Python object.
pub fn to_py<'py, T: Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    value.serialize(ToPy(py)).map_err(|e| e.0)
}

pub struct Error(PyErr);

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error(pyo3::exceptions::PyValueError::new_err(msg.to_string()))
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e)
    }
}

#[derive(Clone, Copy)]
struct ToPy<'py>(Python<'py>);

type Obj<'py> = Bound<'py, PyAny>;

impl<'py> ToPy<'py> {
    fn of(self, v: impl IntoPyObject<'py>) -> Result<Obj<'py>, Error> {
        Ok(v.into_bound_py_any(self.0)?)
    }

    /// `{variant: value}`, serde's external tagging (as serde_json writes it).
    fn tagged(self, variant: &str, value: Obj<'py>) -> Result<Obj<'py>, Error> {
        let d = PyDict::new(self.0);
        d.set_item(variant, value)?;
        Ok(d.into_any())
    }
}

impl<'py> ser::Serializer for ToPy<'py> {
    type Ok = Obj<'py>;
    type Error = Error;
    type SerializeSeq = Seq<'py>;
    type SerializeTuple = Seq<'py>;
    type SerializeTupleStruct = Seq<'py>;
    type SerializeTupleVariant = Seq<'py>;
    type SerializeMap = Map<'py>;
    type SerializeStruct = Map<'py>;
    type SerializeStructVariant = Map<'py>;

    fn serialize_bool(self, v: bool) -> Result<Obj<'py>, Error> {
        self.of(v)
    }
    fn serialize_i8(self, v: i8) -> Result<Obj<'py>, Error> {
        self.of(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Obj<'py>, Error> {
        self.of(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Obj<'py>, Error> {
        self.of(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Obj<'py>, Error> {
        self.of(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Obj<'py>, Error> {
        self.of(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Obj<'py>, Error> {
        self.of(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Obj<'py>, Error> {
        self.of(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Obj<'py>, Error> {
        self.of(v)
    }
    fn serialize_f32(self, v: f32) -> Result<Obj<'py>, Error> {
        self.serialize_f64(f64::from(v))
    }
    /// Non-finite floats become None, as serde_json writes them (`null`).
    fn serialize_f64(self, v: f64) -> Result<Obj<'py>, Error> {
        if v.is_finite() { self.of(v) } else { Ok(self.0.None().into_bound(self.0)) }
    }
    fn serialize_char(self, v: char) -> Result<Obj<'py>, Error> {
        self.of(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<Obj<'py>, Error> {
        Ok(PyString::new(self.0, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Obj<'py>, Error> {
        self.of(v.to_vec())
    }
    fn serialize_none(self) -> Result<Obj<'py>, Error> {
        Ok(self.0.None().into_bound(self.0))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Obj<'py>, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Obj<'py>, Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Obj<'py>, Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Obj<'py>, Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Obj<'py>, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Obj<'py>, Error> {
        let inner = value.serialize(self)?;
        self.tagged(variant, inner)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'py>, Error> {
        Ok(Seq { to: self, items: Vec::with_capacity(len.unwrap_or(0)), variant: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'py>, Error> {
        Ok(Seq { variant: Some(variant), ..self.serialize_seq(Some(len))? })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Map<'py>, Error> {
        Ok(Map { to: self, dict: PyDict::new(self.0), key: None, variant: None })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Map<'py>, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Map<'py>, Error> {
        Ok(Map { variant: Some(variant), ..self.serialize_map(Some(len))? })
    }
}

pub struct Seq<'py> {
    to: ToPy<'py>,
    items: Vec<Obj<'py>>,
    variant: Option<&'static str>,
}

impl<'py> Seq<'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.to)?);
        Ok(())
    }

    fn done(self) -> Result<Obj<'py>, Error> {
        let list = PyList::new(self.to.0, self.items)?.into_any();
        match self.variant {
            Some(v) => self.to.tagged(v, list),
            None => Ok(list),
        }
    }
}

macro_rules! seq_impl {
    ($trait:ident, $method:ident) => {
        impl<'py> ser::$trait for Seq<'py> {
            type Ok = Obj<'py>;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.push(value)
            }
            fn end(self) -> Result<Obj<'py>, Error> {
                self.done()
            }
        }
    };
}

seq_impl!(SerializeSeq, serialize_element);
seq_impl!(SerializeTuple, serialize_element);
seq_impl!(SerializeTupleStruct, serialize_field);
seq_impl!(SerializeTupleVariant, serialize_field);

pub struct Map<'py> {
    to: ToPy<'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Obj<'py>>,
    variant: Option<&'static str>,
}

impl<'py> Map<'py> {
    fn done(self) -> Result<Obj<'py>, Error> {
        match self.variant {
            Some(v) => self.to.tagged(v, self.dict.into_any()),
            None => Ok(self.dict.into_any()),
        }
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let key = PyString::new(self.to.0, key);
        self.dict.set_item(key, value.serialize(self.to)?)?;
        Ok(())
    }
}

impl<'py> ser::SerializeMap for Map<'py> {
    type Ok = Obj<'py>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        // JSON object keys are strings: numbers and the like become their text, as serde_json.
        let key = key.serialize(self.to)?;
        self.key = Some(if key.is_instance_of::<PyString>() { key } else { key.str()?.into_any() });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key =
            self.key.take().ok_or_else(|| <Error as ser::Error>::custom("a map value without a key"))?;
        self.dict.set_item(key, value.serialize(self.to)?)?;
        Ok(())
    }
    fn end(self) -> Result<Obj<'py>, Error> {
        self.done()
    }
}

impl<'py> ser::SerializeStruct for Map<'py> {
    type Ok = Obj<'py>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Result<Obj<'py>, Error> {
        self.done()
    }
}

impl<'py> ser::SerializeStructVariant for Map<'py> {
    type Ok = Obj<'py>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Result<Obj<'py>, Error> {
        self.done()
    }
}
