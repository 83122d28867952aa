//! Compile-pass and compile-fail tests of the public API: what users write must compile, and the
//! mistakes the type system is meant to catch must not.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/pass/*.rs");
    cases.compile_fail("tests/fail/*/*.rs");
}
