use agents_kt::prelude::*;

pub struct Report {
    pub text: String,
}

/// Writes a report.
#[tool]
fn write_report(topic: String) -> Report {
    Report { text: topic }
}

fn main() {}
