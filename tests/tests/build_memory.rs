//! Building an agent frees everything it allocated once the agent is dropped: the names of tools
//! known only at run time (a sub-agent's, a handoff's) are shared with the agent, not leaked on
//! every `build()` — an application that builds agents per request does not grow. Counted by a
//! global allocator wrapping the system one; alone in its binary, so nothing else allocates
//! while it counts.

use agents_kt::{Agent, Reply, ScriptedModel};
use agents_kt_tests::counting::CountingAllocator;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// A planner with a sub-agent tool and a handoff, built and dropped.
fn build_and_drop() {
    let researcher = Agent::<String, String>::builder("researcher")
        .model(ScriptedModel::new([Reply::text("three sources")]))
        .build()
        .expect("the researcher builds");
    let desk = Agent::<String, String>::builder("desk")
        .model(ScriptedModel::new([Reply::text("done")]))
        .build()
        .expect("the desk builds");
    let planner = Agent::<String, String>::builder("planner")
        .model(ScriptedModel::new([Reply::text("planned")]))
        .sub_agent(researcher.as_tool("research_the_question_in_depth", "Finds sources."))
        .handoff(desk)
        .build()
        .expect("the planner builds");
    drop(planner);
}

/// One test, so nothing else in this binary allocates while it counts.
#[test]
fn building_agents_with_run_time_tool_names_and_dropping_them_frees_the_names() {
    // Once-per-process state (environment reads, thread-locals, tracing's callsites) first.
    for _ in 0..3 {
        build_and_drop();
    }
    let before = CountingAllocator::live_bytes();
    let builds = 200;
    for _ in 0..builds {
        build_and_drop();
    }
    let grown = CountingAllocator::live_bytes().saturating_sub(before);
    // Leaking the two names on every build keeps their 46 bytes each time (9,200 here).
    assert!(
        grown < 1_000,
        "{builds} builds kept {grown} bytes after every agent was dropped"
    );
}
