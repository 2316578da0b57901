//! The tenant's knobs and the seed material they make (docs/flows.md, "Knobs").
//!
//! The trace length `d` and the log format `f` are not part of the material: a tenant is the
//! same world whatever its trace length or rendering, which is what makes the first m minutes of
//! a long trace equal to a short one.

use std::fmt;

use super::format::Format;

/// How a VNet's hosts are numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layout {
    /// One /22 per role.
    Tier,
    /// One /18 per VNet, hosts scattered.
    Flat,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Tier => "tier",
            Layout::Flat => "flat",
        }
    }
    pub fn parse(s: &str) -> Option<Layout> {
        match s {
            "tier" => Some(Layout::Tier),
            "flat" => Some(Layout::Flat),
            _ => None,
        }
    }
}

/// The knobs of one tenant and its trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Knobs {
    /// Applications, 1..=4.
    pub a: u32,
    /// Instance scale N, 1..=1000.
    pub n: u32,
    /// Trace minutes, 2..=1440.
    pub d: u32,
    /// Internet clients, 0..=100,000.
    pub c: u32,
    /// Percent of VMs whose role label is known.
    pub k: u32,
    /// Percent of VMs replaced at each churn point, 0..=50.
    pub u: u32,
    pub layout: Layout,
    pub format: Format,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs { a: 1, n: 4, d: 60, c: 200, k: 0, u: 0, layout: Layout::Tier, format: Format::Vnet4 }
    }
}

impl Knobs {
    /// Knobs with `c` at its default of 50·N.
    pub fn with_scale(a: u32, n: u32, d: u32) -> Knobs {
        Knobs { a, n, d, c: 50 * n, ..Knobs::default() }
    }

    /// Checks every range; the message names the knob and its range.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(&str, u32, u32, u32); 6] = [
            ("a", self.a, 1, 4),
            ("n", self.n, 1, 1000),
            ("d", self.d, 2, 1440),
            ("c", self.c, 0, 100_000),
            ("k", self.k, 0, 100),
            ("u", self.u, 0, 50),
        ];
        for (name, v, lo, hi) in checks {
            if v < lo || v > hi {
                return Err(format!("knob {name}={v} is out of range {lo}..{hi}"));
            }
        }
        Ok(())
    }

    /// The knobs that shape the tenant (not `d`, not `f`), as they enter the seed material.
    pub fn tenant_part(&self) -> String {
        format!("a{}-n{}-c{}-k{}-u{}-l{}", self.a, self.n, self.c, self.k, self.u, self.layout.name())
    }
}

/// Which tenant: the asking application, its level and seed, and the knobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TenantKey {
    pub app: String,
    pub level: u8,
    pub seed: u64,
    pub knobs: Knobs,
}

impl TenantKey {
    /// `netpress|flows|v1|{app}|L{level}|s{seed}|{tenant knobs}`.
    pub fn material(&self) -> String {
        format!("netpress|flows|v1|{}|L{}|s{}|{}", self.app, self.level, self.seed, self.knobs.tenant_part())
    }

    /// The material of one sub-stream (`plan`, `labels`, `churn`, `scan`, `e{row}`).
    pub fn part(&self, part: &str) -> String {
        format!("{}|{part}", self.material())
    }
}

impl fmt::Display for TenantKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.material())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_leaves_out_length_and_format() {
        let mut k = TenantKey { app: "traffic".into(), level: 2, seed: 7, knobs: Knobs::default() };
        let m = k.material();
        assert_eq!(m, "netpress|flows|v1|traffic|L2|s7|a1-n4-c200-k0-u0-ltier");
        k.knobs.d = 30;
        k.knobs.format = Format::Aws2;
        assert_eq!(k.material(), m);
        assert_eq!(k.part("plan"), format!("{m}|plan"));
    }

    #[test]
    fn ranges_are_checked() {
        let bad = Knobs { n: 0, ..Knobs::default() };
        assert_eq!(bad.validate().unwrap_err(), "knob n=0 is out of range 1..1000");
        assert!(Knobs { u: 51, ..Knobs::default() }.validate().is_err());
        assert!(Knobs::default().validate().is_ok());
    }
}
