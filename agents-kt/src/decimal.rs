//! A number's decimal digits, written without `format!`: run ids and journaled steps' names are
//! made on every run and turn, and the formatting machinery costs several times the work.

/// The decimal digits of a `u64`, on the stack.
pub(crate) struct Decimal {
    digits: [u8; 20],
    start: usize,
}

impl Decimal {
    pub(crate) fn of(number: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        let mut rest = number;
        loop {
            start -= 1;
            // `rest % 10` is below 10: the cast keeps it whole.
            digits[start] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        Decimal { digits, start }
    }

    /// How many digits.
    pub(crate) fn len(&self) -> usize {
        self.digits.len() - self.start
    }

    /// Append the digits to `text`.
    pub(crate) fn push_onto(&self, text: &mut String) {
        // ASCII digits: one char per byte.
        text.extend(
            self.digits[self.start..]
                .iter()
                .map(|&digit| char::from(digit)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::Decimal;

    #[test]
    fn digits_read_as_format_writes_them() {
        for number in [0, 7, 10, 99, 100, 4_096, 12_345_678, u64::MAX] {
            let decimal = Decimal::of(number);
            let mut text = String::new();
            decimal.push_onto(&mut text);
            assert_eq!(text, number.to_string());
            assert_eq!(decimal.len(), text.len());
        }
    }
}
