//! With synchronous interceptors, the chain allocates nothing on the Proceed path: counted by a
//! global allocator wrapping the system one. Alone in its binary, so no other test allocates
//! concurrently.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agents_kt::chain::{Effect, run_chain};
use agents_kt::{Decision, FnInterceptor, Interceptor};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[derive(Clone)]
struct Args {
    city: String,
}

#[test]
fn eight_sync_proceed_interceptors_allocate_nothing() {
    let chain: Vec<Arc<dyn Interceptor<Args, u32>>> = (0..8)
        .map(|n| {
            Arc::new(FnInterceptor::<_, Args, _>::new(move |args: &Args| {
                if args.city.len() > 1000 + n {
                    Decision::deny("too long")
                } else {
                    Decision::<Args, u32>::Proceed
                }
            })) as Arc<dyn Interceptor<Args, u32>>
        })
        .collect();
    // The counter counts (so a zero below means something).
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    drop(Box::new(7u64));
    assert!(ALLOCATIONS.load(Ordering::SeqCst) > before);
    let args = Args {
        city: "Oslo".into(),
    };
    // Warm up whatever the executor sets up once.
    let _ = futures::executor::block_on(run_chain(&chain, args.clone()));
    let input = args.clone();
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let outcome = futures::executor::block_on(run_chain(&chain, input));
    let allocated = ALLOCATIONS.load(Ordering::SeqCst) - before;
    assert_eq!(outcome.effect, Effect::Proceed);
    assert_eq!(
        allocated, 0,
        "the Proceed path of a sync chain must not allocate"
    );
    drop(outcome);
}
