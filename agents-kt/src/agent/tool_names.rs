//! The agent's tools by name, looked up once per tool call.
//!
//! The std map hashes with SipHash, which resists an attacker who chooses the keys put into a
//! map. The keys here are the agent's own tool names, fixed when it is built; the model (or an
//! MCP client) only chooses the names looked up, and a lookup cannot lengthen a chain of
//! colliding keys — so the cheaper FNV-1a hash gives up nothing, and a tool call hashes its
//! name in a fraction of SipHash's instructions.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// Tool name → its index among the agent's tools.
pub(crate) type ToolNames = HashMap<Arc<str>, usize, BuildHasherDefault<Fnv1a>>;

/// FNV-1a, 64-bit.
pub(crate) struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_by_their_text_and_others_are_not() {
        let mut names = ToolNames::default();
        for (index, name) in ["get_weather", "search", "write_file"]
            .into_iter()
            .enumerate()
        {
            names.insert(Arc::from(name), index);
        }
        assert_eq!(names.get("search"), Some(&1));
        assert_eq!(names.get("write_file"), Some(&2));
        assert_eq!(names.get("get_weathe"), None);
        assert_eq!(names.get(""), None);
    }

    #[test]
    fn fnv1a_matches_its_published_test_vectors() {
        let hash = |text: &str| {
            let mut hasher = Fnv1a::default();
            hasher.write(text.as_bytes());
            hasher.finish()
        };
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }
}
