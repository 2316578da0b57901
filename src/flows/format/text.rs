//! The writer of every flow-log text. An hour of a large tenant's logs holds tens of millions
//! of numbers and addresses: `write!` pays `fmt`'s dynamic dispatch and padding logic per
//! field, `tenant::dotted` a `String` per address, and even `String::push_str` a call to
//! `memcpy` per field, whose length varies. [`Text`] avoids all three.

/// Log text in a byte buffer written at a cursor. Appending each field to a `String` spent
/// about half the time of rendering an AWS file in `memcpy` calls; here an octet is a fixed
/// four-byte copy of a table entry and a number is written in place two digits at a time.
/// The buffer starts zeroed (`vec![0; n]` takes fresh pages from the system without writing
/// them) and grows by doubling when a field would not fit.
///
/// Only whole `&str`s and ASCII bytes are written, so the bytes are always UTF-8; the check
/// that turns them into a `String` at the end is one fast pass over ASCII.
pub(super) struct Text {
    buf: Vec<u8>,
    at: usize,
}

/// A short text written on many lines (an AWS line's version, account and interface), kept in
/// a fixed block so that writing it is one copy of a known size: a `&str` of varying length
/// costs a call to `memcpy` each time. A longer text is kept as it is.
pub(super) enum Piece {
    Short([u8; PIECE], usize),
    Long(String),
}

const PIECE: usize = 64;

impl Piece {
    pub(super) fn new(s: String) -> Piece {
        if s.len() > PIECE {
            return Piece::Long(s);
        }
        let mut block = [b' '; PIECE];
        block[..s.len()].copy_from_slice(s.as_bytes());
        Piece::Short(block, s.len())
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Piece::Short(_, len) => *len,
            Piece::Long(s) => s.len(),
        }
    }
}

/// An octet's digits, then a '.', padded to four bytes; the digit count is in [`OCTET_LEN`].
static OCTETS: [[u8; 4]; 256] = {
    let mut t = [[b'.'; 4]; 256];
    let mut i = 0;
    while i < 256 {
        let (h, d, u) = (b'0' + (i / 100) as u8, b'0' + (i / 10 % 10) as u8, b'0' + (i % 10) as u8);
        t[i] = if i >= 100 {
            [h, d, u, b'.']
        } else if i >= 10 {
            [d, u, b'.', b'.']
        } else {
            [u, b'.', b'.', b'.']
        };
        i += 1;
    }
    t
};

/// The number of digits of each octet.
static OCTET_LEN: [u8; 256] = {
    let mut t = [1; 256];
    let mut i = 10;
    while i < 256 {
        t[i] = if i >= 100 { 3 } else { 2 };
        i += 1;
    }
    t
};

/// "00", "01", … "99": a number is written two digits per division.
static PAIRS: [u8; 200] = {
    let mut t = [0; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

impl Text {
    /// An empty text with room for about `n` bytes.
    pub(super) fn with_capacity(n: usize) -> Text {
        Text { buf: vec![0; n.max(64)], at: 0 }
    }

    /// The bytes written so far.
    pub(super) fn len(&self) -> usize {
        self.at
    }

    /// Makes room for `n` more bytes.
    #[inline]
    fn room(&mut self, n: usize) -> &mut [u8] {
        if self.at + n > self.buf.len() {
            self.grow(n);
        }
        &mut self.buf[self.at..self.at + n]
    }

    #[cold]
    fn grow(&mut self, n: usize) {
        let want = (self.buf.len() * 2).max(self.at + n);
        self.buf.resize(want, 0);
    }

    pub(super) fn str(&mut self, s: &str) {
        self.room(s.len()).copy_from_slice(s.as_bytes());
        self.at += s.len();
    }

    /// The bytes written since `from` (a length [`Text::len`] gave earlier, before a drain).
    pub(super) fn since(&self, from: usize) -> &[u8] {
        &self.buf[from..self.at]
    }

    /// Appends bytes that an earlier [`Text::since`] gave (so ASCII, or whole `&str`s).
    pub(super) fn bytes(&mut self, b: &[u8]) {
        self.room(b.len()).copy_from_slice(b);
        self.at += b.len();
    }

    /// Appends a [`Piece`]: the whole block is copied and the cursor moves past the text; the
    /// padding is overwritten by what comes next.
    pub(super) fn piece(&mut self, p: &Piece) {
        match p {
            Piece::Short(block, len) => {
                self.room(PIECE).copy_from_slice(block);
                self.at += len;
            }
            Piece::Long(s) => self.str(s),
        }
    }

    /// Appends one ASCII byte (a separator).
    pub(super) fn byte(&mut self, b: u8) {
        debug_assert!(b.is_ascii());
        self.room(1)[0] = b;
        self.at += 1;
    }

    /// Appends `n` in decimal.
    pub(super) fn int(&mut self, mut n: u64) {
        let len = n.checked_ilog10().unwrap_or(0) as usize + 1;
        let out = self.room(len);
        let mut i = len;
        while n >= 100 {
            let pair = (n % 100) as usize * 2;
            n /= 100;
            i -= 2;
            out[i..i + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        }
        if n >= 10 {
            out[..2].copy_from_slice(&PAIRS[n as usize * 2..n as usize * 2 + 2]);
        } else {
            out[0] = b'0' + n as u8;
        }
        self.at += len;
    }

    /// Appends each of `ns` in decimal followed by `sep`.
    pub(super) fn ints(&mut self, ns: &[u64], sep: u8) {
        for &n in ns {
            self.int(n);
            self.byte(sep);
        }
    }

    /// Appends the dotted form of an address number (what `tenant::dotted` gives).
    pub(super) fn ip(&mut self, addr: u32) {
        let octets = addr.to_be_bytes();
        for (k, octet) in octets.into_iter().enumerate() {
            // The whole entry is copied and the cursor moves past the digits and, but for the
            // last octet, the dot; the padding is overwritten by what comes next.
            self.room(4).copy_from_slice(&OCTETS[octet as usize]);
            self.at += usize::from(OCTET_LEN[octet as usize]) + usize::from(k < 3);
        }
    }

    /// Hands the text so far to `w` and starts again at the buffer's start: writing a file
    /// a block at a time never holds it whole.
    pub(super) fn drain_to(&mut self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(&self.buf[..self.at])?;
        self.at = 0;
        Ok(())
    }

    /// The text as a `String`.
    pub(super) fn into_string(mut self) -> String {
        self.buf.truncate(self.at);
        // Never an error: see the type's doc. Lossy rather than a panic all the same.
        String::from_utf8(self.buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// For the JSON around Azure's and GCP's fields, written with `write!`.
impl std::fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flows::tenant::dotted;

    fn text(write: impl FnOnce(&mut Text)) -> String {
        // A small start, so the writes also cross the buffer's growth.
        let mut t = Text::with_capacity(1);
        write(&mut t);
        t.into_string()
    }

    #[test]
    fn text_writes_what_fmt_does() {
        let ns = [
            0,
            1,
            9,
            10,
            99,
            100,
            999,
            1_000,
            65_535,
            1_736_121_600,
            10u64.pow(19) - 1,
            10u64.pow(19),
            u64::MAX,
        ];
        for n in ns {
            assert_eq!(text(|t| t.int(n)), n.to_string());
        }
        for addr in [0, 1, 9, 10, 99, 100, 255, 256, 0x0a00_1815, 0xc0a8_0001, 0x6464_0a09, u32::MAX] {
            assert_eq!(text(|t| t.ip(addr)), dotted(addr));
        }
        let all = text(|t| {
            for n in ns {
                t.int(n);
                t.byte(b' ');
                t.ip(n as u32);
                t.str(" é ");
            }
        });
        let want: String = ns.iter().map(|&n| format!("{n} {} é ", dotted(n as u32))).collect();
        assert_eq!(all, want);
    }

    #[test]
    fn pieces_write_their_text_and_no_padding() {
        let long = "x".repeat(PIECE + 1);
        for s in ["", "2 438402970717 eni-d69a2fa32e7c04410 ", &"y".repeat(PIECE), &long] {
            let p = Piece::new(s.to_string());
            assert_eq!(p.len(), s.len());
            // The padding after a short piece is overwritten by what follows, and the text
            // ends where the piece does.
            assert_eq!(text(|t| t.piece(&p)), s);
            assert_eq!(
                text(|t| {
                    t.piece(&p);
                    t.int(7);
                    t.piece(&p)
                }),
                format!("{s}7{s}")
            );
        }
        assert!(matches!(Piece::new(long), Piece::Long(_)));
    }

    #[test]
    fn text_drains_a_block_at_a_time() {
        let mut t = Text::with_capacity(8);
        let mut sink = Vec::new();
        for n in 0..1000u64 {
            t.int(n);
            t.byte(b'\n');
            if t.len() > 100 {
                t.drain_to(&mut sink).unwrap();
            }
        }
        t.drain_to(&mut sink).unwrap();
        let want: String = (0..1000).map(|n| format!("{n}\n")).collect();
        assert_eq!(String::from_utf8(sink).unwrap(), want);
    }

    proptest::proptest! {
        #[test]
        fn text_numbers_and_addresses(ns in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..20)) {
            let got = text(|t| ns.iter().for_each(|&n| { t.int(n); t.byte(b','); t.ip(n as u32); t.byte(b' '); }));
            let want: String = ns.iter().map(|&n| format!("{n},{} ", dotted(n as u32))).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
