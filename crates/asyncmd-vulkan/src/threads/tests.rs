//! The pool, its hand-overs and its polling, without a driver.

use super::*;

/// The pool is the process's: tests that count its threads run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

#[test]
fn tasks_run_on_pooled_threads_that_survive_panics_and_are_reused() {
    let _serial = serial();
    let ran = Arc::new(AtomicUsize::new(0));
    let ids = Arc::new(Mutex::new(Vec::new()));
    for n in 0..6 {
        let (task_ran, task_ids) = (ran.clone(), ids.clone());
        let h = spawn(move || {
            task_ids.lock().unwrap().push(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(5));
            if n == 2 {
                panic!("a task that unwinds");
            }
            task_ran.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        h.join();
        // `join` returned, so the task ran to its end.
        assert_eq!(ran.load(Ordering::SeqCst), n + usize::from(n < 2));
    }
    let ids = ids.lock().unwrap();
    assert!(ids.iter().all(|&id| id != std::thread::current().id()));
    // One task at a time, each joined after its thread went idle: one thread ran them all,
    // the panicking one included.
    assert!(ids.iter().all(|&id| id == ids[0]), "{ids:?}");
}

#[test]
fn a_bounded_join_gives_up_on_a_task_that_does_not_end() {
    let _serial = serial();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let stuck = spawn(move || {
        let _ = rx.recv();
    })
    .unwrap();
    assert!(!stuck.join_timeout(Duration::from_millis(30)));
    drop(tx);
    assert!(spawn(|| {}).unwrap().join_timeout(Duration::from_secs(20)));
}

#[test]
fn driver_calls_run_on_pooled_threads_borrow_the_callers_data_and_pass_panics_back() {
    let _serial = serial();
    let caller = std::thread::current().id();
    let mut data = vec![1, 2, 3];
    let (pooled, id, nested) = on_driver(|| {
        data.push(4);
        let id = std::thread::current().id();
        // A call made on a pooled thread runs inline.
        let nested = on_driver(|| std::thread::current().id());
        (POOLED.with(Cell::get), id, nested)
    });
    assert!(pooled);
    assert_ne!(id, caller);
    assert_eq!(nested, id);
    assert_eq!(data, [1, 2, 3, 4]);
    assert!(!POOLED.with(Cell::get));
    let unwound = std::panic::catch_unwind(|| on_driver(|| -> u32 { panic!("a driver call that unwinds") }));
    let payload = unwound.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"a driver call that unwinds"));
    // The thread that unwound is back in the pool and serves the next call.
    assert_eq!(on_driver(|| 7), 7);
}

#[test]
fn the_polling_setting_overrides_the_machines_size_and_nothing_else_does() {
    assert!(polls(Some("on"), 1) && polls(Some("on"), 64));
    assert!(!polls(Some("off"), 1) && !polls(Some("off"), 64));
    // Unset, or any other value: the rule of the cores.
    for setting in [None, Some(""), Some("ON"), Some("1"), Some("yes please")] {
        assert!(!polls(setting, POLLING_CORES - 1), "{setting:?}");
        assert!(polls(setting, POLLING_CORES), "{setting:?}");
    }
}

#[test]
fn long_polls_are_capped_and_give_their_share_back() {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let taken: Vec<_> = (0..4).map(|_| LongPoll::take_of(&COUNT, 3)).collect();
    assert_eq!(taken.iter().map(Option::is_some).collect::<Vec<_>>(), [true, true, true, false]);
    drop(taken);
    assert_eq!(COUNT.load(Ordering::Acquire), 0, "every share went back");
    assert!(LongPoll::take_of(&COUNT, 3).is_some());
    // Half the cores at most, and nothing where threads do not poll.
    let held: Vec<_> = (0..=cores()).map_while(|_| LongPoll::take()).collect();
    assert!(held.len() <= cores() / 2, "{} long polls on {} cores", held.len(), cores());
    if !polling() {
        assert!(held.is_empty());
        assert!(!spin_long(Duration::from_secs(5), || false), "one look, no poll");
    }
}

#[test]
fn an_alert_wakes_a_sleeping_receiver_and_loses_no_message() {
    let _serial = serial();
    let alert = Arc::new(Alert::default());
    let (tx, rx) = channel::<u32>();
    let (receiver_alert, (seen_tx, seen)) = (alert.clone(), channel::<u32>());
    let receiver = spawn(move || {
        while let Some(m) = recv_alerted(&rx, &receiver_alert) {
            let _ = seen_tx.send(m);
        }
    })
    .unwrap();
    // Wait until the receiver sleeps in its channel.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !alert.asleep.load(Ordering::SeqCst) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(alert.asleep.load(Ordering::SeqCst), "the receiver never slept");
    let mut woken = 0;
    alert.raise(|| {
        woken += 1;
        tx.send(0).unwrap();
    });
    // Where threads poll, the sleeping receiver was woken with a message of its own;
    // elsewhere an alert does nothing.
    assert_eq!(woken, usize::from(polling()));
    if polling() {
        assert_eq!(seen.recv_timeout(Duration::from_secs(20)), Ok(0));
    }
    // Raises and messages interleaved: every message arrives, in order, whatever the
    // receiver was doing at each raise.
    let mut wakes = 0u32;
    for m in 1..=200 {
        alert.raise(|| wakes += 1);
        tx.send(m).unwrap();
        if m % 50 == 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let got: Vec<u32> = (1..=200).map(|_| seen.recv_timeout(Duration::from_secs(20)).unwrap()).collect();
    assert_eq!(got, (1..=200).collect::<Vec<_>>(), "{wakes} wakes");
    drop(tx);
    assert!(receiver.join_timeout(Duration::from_secs(20)), "a closed channel ends the receiver");
}

#[test]
fn a_reserved_thread_runs_the_call_posted_later_and_a_dropped_reservation_lets_it_go() {
    let _serial = serial();
    let caller = std::thread::current().id();
    assert_eq!(reserve().is_some(), polling(), "lists hold a thread only where threads poll");
    // Reservations are capped: of four asked under a cap three above what is held now,
    // one at least gets none (others' reservations only lower what this test gets).
    let cap = HELD.load(Ordering::Acquire) + 3;
    let held: Vec<_> = (0..4).map(|_| reserve_counted(cap)).collect();
    let got = held.iter().filter(|r| r.is_some()).count();
    assert!((1..=3).contains(&got), "{got} of 4 under a cap of 3 more");
    drop(held);
    assert!(reserve_counted(cap).is_some(), "the dropped reservations gave their slots back");
    let reserved = reserve_thread().expect("a pooled thread");
    let mut data = vec![1];
    std::thread::sleep(Duration::from_millis(2)); // past the polling: the thread sleeps
    let id = reserved.run(|| {
        data.push(2);
        (std::thread::current().id(), POOLED.with(Cell::get))
    });
    assert_eq!(data, [1, 2]);
    assert_ne!(id.0, caller);
    assert!(id.1, "on a pooled thread");
    let unwound =
        std::panic::catch_unwind(|| reserve_thread().unwrap().run(|| -> u8 { panic!("a reserved call that unwinds") }));
    assert_eq!(unwound.unwrap_err().downcast_ref::<&str>(), Some(&"a reserved call that unwinds"));
    // Reservations dropped unused block nothing, and later tasks are served.
    let held: Vec<_> = (0..4).map(|_| reserve_thread().unwrap()).collect();
    drop(held);
    let handles: Vec<_> = (0..4).map(|_| spawn(|| {}).unwrap()).collect();
    assert!(handles.into_iter().all(|h| h.join_timeout(Duration::from_secs(20))));
    // On a pooled thread nothing is reserved: its calls run inline.
    assert!(on_driver(|| reserve_thread().is_none()));
}
