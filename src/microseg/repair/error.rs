//! Every error the repair language reports, each one line `error: <what>` (its `Display`).

/// Why a command line did not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepairError {
    /// The reply has no fenced block.
    #[error("error: no command block (put the commands in one ``` fenced block)")]
    NoBlock,
    /// The block has more lines than a turn may hold.
    #[error("error: too many lines ({0}; at most 32 per turn)")]
    TooManyLines(usize),
    #[error("error: unknown command '{0}' (show, check, flows, group, member, rule, default, done)")]
    UnknownCommand(String),
    /// Wrong words or arguments for a known command: its usage line.
    #[error("error: usage: {0}")]
    Usage(&'static str),
    #[error("error: bad group name '{0}' (a lowercase letter, then up to 62 of a-z 0-9 _ . -)")]
    BadGroupName(String),
    #[error("error: '{0}' is a reserved group")]
    Reserved(String),
    #[error("error: bad address '{0}' (an IPv4 address such as 10.1.0.23)")]
    BadAddress(String),
    #[error("error: bad endpoint '{0}' (a group, a reserved group or a CIDR such as 10.1.0.0/24)")]
    BadEndpoint(String),
    #[error("error: bad protocol '{0}' (tcp, udp or any)")]
    BadProto(String),
    #[error("error: bad ports '{0}' (N, A-B or any, 1..65535)")]
    BadPorts(String),
    #[error("error: bad rule number '{0}' (1, 2, …)")]
    BadRuleNumber(String),
    #[error("error: bad flows argument '{0}' (col=VALUE, col~CIDR, by=col,… or top=N)")]
    BadFlowsArg(String),
    #[error("error: unknown column '{0}' (columns: {columns})", columns = crate::flows::table::COLUMNS.join(", "))]
    UnknownColumn(String),
    #[error("error: '{0}' is not an address column (vantage, src, dst)")]
    NotAddressColumn(String),
    #[error("error: bad top '{0}' (1..1000)")]
    BadTop(String),
    // Found when a command is applied to the policy, not when it is parsed:
    /// `rule del 12` on a policy of 9 rules (`count` 0 prints as having none).
    #[error("error: no rule {index} ({})", rules_range(*count))]
    NoRule { index: usize, count: usize },
    #[error("error: unknown group '{0}'")]
    UnknownGroup(String),
    #[error("error: group '{0}' exists")]
    GroupExists(String),
    /// `flows` lists connection keys, so it filters and groups on their columns only.
    #[error("error: flows works on src, dst, proto and dport here, not '{0}'")]
    FlowsColumn(String),
}

fn rules_range(count: usize) -> String {
    if count == 0 { "there are no rules".into() } else { format!("rules: 1..{count}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_wordings() {
        assert_eq!(
            RepairError::NoRule { index: 12, count: 9 }.to_string(),
            "error: no rule 12 (rules: 1..9)"
        );
        assert_eq!(RepairError::UnknownGroup("dbs".into()).to_string(), "error: unknown group 'dbs'");
        assert_eq!(
            RepairError::BadPorts("70000".into()).to_string(),
            "error: bad ports '70000' (N, A-B or any, 1..65535)"
        );
        assert_eq!(
            RepairError::NoRule { index: 1, count: 0 }.to_string(),
            "error: no rule 1 (there are no rules)"
        );
    }
}
