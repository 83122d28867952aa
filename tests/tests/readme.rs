//! The README shows `examples/tour.rs` whole: the program in the README is the one CI runs.

#[test]
fn the_readmes_first_program_is_examples_tour_rs() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let tour = std::fs::read_to_string(format!("{root}/examples/tour.rs")).unwrap();
    let section = readme
        .split_once("## A first program")
        .map(|(_, rest)| rest)
        .expect("the README has a first program");
    let block = section
        .split_once("```rust\n")
        .and_then(|(_, rest)| rest.split_once("```\n"))
        .map(|(block, _)| block)
        .expect("a rust block");
    assert_eq!(
        block, tour,
        "README's first program and examples/tour.rs differ"
    );
}
