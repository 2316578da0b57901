//! The five flow-log formats (docs/flows.md, "Formats").

/// A flow-log format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// AWS VPC Flow Logs, default format (version 2).
    Aws2,
    /// AWS VPC Flow Logs, a custom format of version-5 fields.
    Aws5,
    /// Azure NSG flow logs, version 2.
    Nsg2,
    /// Azure virtual network flow logs (version 4).
    Vnet4,
    /// GCP VPC Flow Logs, one JSON object per line.
    Gcp,
}

impl Format {
    pub const ALL: [Format; 5] = [Format::Aws2, Format::Aws5, Format::Nsg2, Format::Vnet4, Format::Gcp];

    pub fn name(self) -> &'static str {
        match self {
            Format::Aws2 => "aws2",
            Format::Aws5 => "aws5",
            Format::Nsg2 => "nsg2",
            Format::Vnet4 => "vnet4",
            Format::Gcp => "gcp",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == s)
    }
}
