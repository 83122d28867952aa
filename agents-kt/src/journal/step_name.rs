//! A journaled step's own name: `turn#3`, `tool#2:pay`, `approval#1:pay`.
//!
//! Written by hand, not with `format!`: a journaled run names two steps a turn, and the
//! formatting machinery cost more than a tenth of what journaling a turn adds. The text is the
//! same either way (a test says so), and a journal compares it letter for letter on replay.

/// The step `kind#number`, followed by `:tool` when the step is a tool's.
pub(crate) fn numbered(kind: &str, number: u64, tool: Option<&str>) -> String {
    let digits = crate::decimal::Decimal::of(number);
    let tool_len = tool.map_or(0, |tool| tool.len() + 1);
    let mut name = String::with_capacity(kind.len() + 1 + digits.len() + tool_len);
    name.push_str(kind);
    name.push('#');
    digits.push_onto(&mut name);
    if let Some(tool) = tool {
        name.push(':');
        name.push_str(tool);
    }
    name
}

#[cfg(test)]
mod tests {
    use super::numbered;

    #[test]
    fn a_step_name_reads_as_format_writes_it() {
        for number in [0, 1, 9, 10, 99, 100, 12_345, u64::MAX] {
            assert_eq!(numbered("turn", number, None), format!("turn#{number}"));
            assert_eq!(
                numbered("tool", number, Some("get_weather")),
                format!("tool#{number}:get_weather")
            );
        }
        assert_eq!(numbered("approval", 2, Some("")), "approval#2:");
    }
}
