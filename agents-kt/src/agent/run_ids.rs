//! A run's id, `agent/kind-N`: written out rather than `format!`ted, since every run and every
//! MCP call takes one and the formatting machinery cost more than the rest of it.

/// `name/kind-number`.
pub(super) fn run_id(name: &str, kind: &str, number: u64) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = number;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut id = String::with_capacity(name.len() + kind.len() + 2 + digits.len() - at);
    id.push_str(name);
    id.push('/');
    id.push_str(kind);
    id.push('-');
    // ASCII digits: one char per byte.
    id.extend(digits[at..].iter().map(|&digit| char::from(digit)));
    id
}

#[cfg(test)]
mod tests {
    use super::run_id;

    #[test]
    fn a_run_id_is_the_agent_the_kind_and_the_number_in_decimal() {
        for number in [0, 1, 9, 10, 99, 100, 1_234_567_890, u64::MAX] {
            assert_eq!(run_id("desk", "run", number), format!("desk/run-{number}"));
        }
        assert_eq!(run_id("", "mcp", 7), "/mcp-7");
    }
}
