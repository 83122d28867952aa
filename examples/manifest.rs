//! The permission manifests of the `multi_agent` example's agent trees, as stable JSON with their
//! SHA-256 hashes: what each agent may call, with which gates, grants, constraints and budget,
//! and the agents it runs, nested.
//!
//! `cargo run --example manifest` prints them; `-- --check FILE` exits non-zero when they differ
//! from the committed FILE (CI runs it on `examples/multi_agent.manifest.json`, so a change of
//! permissions shows in review); `-- --write FILE` records them.

use agents_kt_examples::multi_agent_tree::{planner, triage};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (triage, planner) = (triage()?.manifest(), planner()?.manifest());
    let both = serde_json::json!({
        "triage": {"hash": triage.hash(), "manifest": triage.json()},
        "planner": {"hash": planner.hash(), "manifest": planner.json()},
    });
    let mut text = serde_json::to_string_pretty(&both)?;
    text.push('\n');
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => print!("{text}"),
        [flag, file] if flag == "--write" => {
            std::fs::write(file, &text)?;
            println!("wrote {file}");
        }
        [flag, file] if flag == "--check" => {
            let committed = std::fs::read_to_string(file)
                .map_err(|error| format!("cannot read {file}: {error}"))?;
            if committed != text {
                eprintln!("the permissions changed: this is the manifest now —\n{text}");
                return Err(format!(
                    "{file} is not the manifest of the example's agents; if the change is meant, run `cargo run --example manifest -- --write {file}` and commit it"
                )
                .into());
            }
            println!(
                "{file}: the permissions are the committed ones (triage {}, planner {})",
                triage.hash(),
                planner.hash()
            );
        }
        _ => return Err("usage: manifest [--check FILE | --write FILE]".into()),
    }
    Ok(())
}
