//! The peer benchmark's raw-Vulkan floor runs every work it is given, and refuses work Vulkan
//! cannot hold with `InvalidArg` before it calls the driver.

use asyncmd::MessageId;
use asyncmd_vulkan::floor::{Floor, FloorWork};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

/// A test's body, and where its end (or panic) is sent.
type Job = (Box<dyn FnOnce() + Send>, Sender<std::thread::Result<()>>);

/// Runs `body` on the one thread of this binary that calls the driver, which never ends, and
/// resumes its panic here. The floor calls the driver from its caller's thread, and the test
/// harness ends each test's thread while other tests run: NVIDIA's driver deadlocks when a
/// thread that called it ends while another calls it (one run in about a hundred of this
/// binary hung so on an H100, `docs/reliability.md`).
fn on_floor_thread(body: impl FnOnce() + Send + 'static) {
    static THREAD: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    let sender = THREAD.get_or_init(|| {
        let (sender, jobs) = channel::<Job>();
        // The sender lives in a static, so the loop, and the thread, last as long as the process.
        std::thread::spawn(move || {
            for (body, done) in jobs {
                let _ = done.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)));
            }
        });
        Mutex::new(sender)
    });
    let (done, result) = channel();
    sender.lock().unwrap_or_else(std::sync::PoisonError::into_inner).send((Box::new(body), done)).unwrap();
    if let Err(panic) = result.recv().unwrap() {
        std::panic::resume_unwind(panic);
    }
}

fn floor() -> Option<Floor> {
    let required = std::env::var("ASYNCMD_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    match Floor::open(None) {
        Ok(f) => Some(f),
        Err(e) => {
            assert!(!required, "{}", e.text);
            None
        }
    }
}

#[test]
fn the_floor_runs_every_work() {
    on_floor_thread(runs_every_work);
}

fn runs_every_work() {
    let Some(mut f) = floor() else { return };
    assert!(!f.name().is_empty());
    for work in [
        FloorWork::Copies { count: 2, bytes: 4096 },
        FloorWork::ZeroFills { count: 2, bytes: 4096 },
        FloorWork::TextureClears { count: 2, side: 16 },
        FloorWork::Stream { commands: 8 },
    ] {
        f.prepare(work).unwrap();
        for _ in 0..2 {
            let s = f.run().unwrap();
            assert!(s.cpu_us > 0.0 && s.done_us >= 0.0, "{work:?}: {s:?}");
            if let Some(g) = s.gpu_ms {
                assert!(g >= 0.0 && g.is_finite(), "{work:?}: {s:?}");
            }
        }
        // Untimed, the work is submitted without timestamps: no GPU time, and the next timed
        // run still reads its own.
        let s = f.run_untimed().unwrap();
        assert!(s.cpu_us > 0.0 && s.gpu_ms.is_none(), "{work:?}: {s:?}");
        let timed = f.run().unwrap();
        if let Some(g) = timed.gpu_ms {
            assert!(g >= 0.0 && g.is_finite(), "{work:?}: {timed:?}");
        }
    }
}

#[test]
fn the_floor_refuses_work_vulkan_cannot_hold() {
    on_floor_thread(refuses_work_vulkan_cannot_hold);
}

fn refuses_work_vulkan_cannot_hold() {
    let Some(mut f) = floor() else { return };
    let err = f.run().unwrap_err();
    assert!(err.text.contains("run before prepare"), "{}", err.text);
    let err = f.run_untimed().unwrap_err();
    assert!(err.text.contains("run before prepare"), "{}", err.text);
    for (work, why) in [
        (FloorWork::Copies { count: 1, bytes: 0 }, "0 bytes"),
        (FloorWork::ZeroFills { count: 3, bytes: 0 }, "0 bytes"),
        (FloorWork::Stream { commands: 0 }, "no commands"),
        (FloorWork::TextureClears { count: 1, side: 0 }, "a side of 0"),
        (FloorWork::TextureClears { count: 1, side: u32::MAX }, "a side of 4294967295"),
        (FloorWork::Copies { count: 10_000, bytes: 16 }, "20000 objects"),
        (FloorWork::Copies { count: u32::MAX, bytes: u64::MAX }, "overflows"),
        (FloorWork::ZeroFills { count: 2, bytes: u64::MAX }, "overflows"),
        (FloorWork::ZeroFills { count: 1, bytes: 1 << 62 }, "largest heap"),
    ] {
        let e = f.prepare(work).unwrap_err();
        assert_eq!(e.id, MessageId::CreateResourceInvalidDesc, "{work:?}: {}", e.text);
        assert!(e.text.contains(why), "{work:?}: {}", e.text);
        // Nothing is left prepared: a run is refused, not recorded with the old work's objects.
        assert!(f.run().unwrap_err().text.contains("run before prepare"));
    }
    // A good work after the refusals still runs.
    f.prepare(FloorWork::Copies { count: 1, bytes: 256 }).unwrap();
    f.run().unwrap();
}
