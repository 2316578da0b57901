//! Numbers and addresses appended to a log text. An hour of a large tenant's logs holds tens
//! of millions of them: `write!` pays `fmt`'s dynamic dispatch and padding logic per field,
//! and `tenant::dotted` a `String` per address. `itoa` (already in the build through
//! serde_json) writes the digits in a stack buffer, and a dotted quad is four such numbers.

/// Appends `n` in decimal.
pub(super) fn int(out: &mut String, n: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Appends the dotted form of an address number (what `tenant::dotted` gives).
pub(super) fn ip(out: &mut String, addr: u32) {
    let [a, b, c, d] = addr.to_be_bytes();
    int(out, a);
    for octet in [b, c, d] {
        out.push('.');
        int(out, octet);
    }
}

/// Appends each of `ns` in decimal followed by `sep`.
pub(super) fn ints(out: &mut String, ns: &[u64], sep: char) {
    for &n in ns {
        int(out, n);
        out.push(sep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flows::tenant::dotted;

    #[test]
    fn as_fmt_writes_them() {
        let mut out = String::new();
        for addr in [0, 1, 255, 256, 0x0a00_1815, 0xc0a8_0001, u32::MAX] {
            out.clear();
            ip(&mut out, addr);
            assert_eq!(out, dotted(addr));
        }
        out.clear();
        ints(&mut out, &[0, 7, 65_535, u64::MAX], ' ');
        int(&mut out, 6u8);
        assert_eq!(out, format!("0 7 65535 {} 6", u64::MAX));
    }
}
