//! The shader conformance suite: kernels (inline, and `shaders/*.wgsl`) whose results are
//! worked out from WGSL's and IEEE-754's definitions, identical on every device where those fix
//! them, within the tolerance written beside each test where they do not.

mod common;

use common::kernels::*;

#[test]
fn integer_and_conversion_edge_cases_follow_wgsl() {
    // WGSL: a zero divisor (or i32::MIN / -1) divides by one; shift amounts are taken modulo
    // 32; float-to-int conversions clamp to the largest f32 in range and send NaN to 0.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let zero = input[0];          // 0
    let minus_one = i32(input[1]); // -1
    let big = bitcast<f32>(input[2]); // 3e9
    let nan = bitcast<f32>(input[3]);
    output[0] = 7u / zero;
    output[1] = 7u % zero;
    output[2] = bitcast<u32>(i32(-2147483647 - 1) / minus_one);
    output[3] = bitcast<u32>(-7 % i32(zero + 3u));
    output[4] = 1u << (zero + 33u);
    output[5] = bitcast<u32>(i32(big));
    output[6] = u32(-big);
    output[7] = bitcast<u32>(i32(nan));
    output[8] = countOneBits(input[2]);
    output[9] = reverseBits(1u);
    output[10] = firstLeadingBit(0x00F0u);
    output[11] = bitcast<u32>(firstLeadingBit(-1));
    output[12] = extractBits(0xABCDu, 4u, 8u);
    output[13] = bitcast<u32>(extractBits(i32(0x0F00), 8u, 4u));
    output[14] = insertBits(0u, 0xFFu, 28u, 8u);
    output[15] = bitcast<u32>(-7 / i32(zero + 2u));
}
"#;
    for (name, ctx) in kernel_contexts() {
        let input = [0u32, u32::MAX, 3e9f32.to_bits(), f32::NAN.to_bits()];
        let out = run(&ctx, wgsl, "main", [1, 1, 1], &[], &bytes_of(&input), &[0; 64]);
        let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        let want = [
            7,
            0,
            i32::MIN as u32,
            (-7i32 % 3) as u32,
            1 << 1,
            // WGSL clamps to the largest f32 below 2^31 before converting.
            2147483520,
            0,
            0,
            3e9f32.to_bits().count_ones(),
            1 << 31,
            7,
            u32::MAX,
            0xBC,
            (-1i32) as u32, // 0b1111 sign-extends
            0xF000_0000,
            (-3i32) as u32,
        ];
        for (i, w) in want.iter().enumerate() {
            // NaN to an integer is an indeterminate value in WGSL (lavapipe gives i32::MIN);
            // the reference device gives D3D's 0.
            if i == 7 && name != "reference" {
                continue;
            }
            assert_eq!(word(i), *w, "{name}: output {i}");
        }
    }
}

#[test]
fn out_of_bounds_reads_give_zero_and_writes_are_dropped() {
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var local: array<u32, 4>;
    local[id.x] = 5u;             // lanes 4-7 index past the array: clamped to local[3]
    output[id.x * 2u] = input[id.x + 6u] + local[id.x % 4u];   // reads past input give 0
    output[id.x + 1000000u] = 9u; // far past the buffer: dropped
}
"#;
    for (name, ctx) in kernel_contexts() {
        let input: Vec<u32> = (1..=8).collect();
        let out = run(&ctx, wgsl, "main", [1, 1, 1], &[], &bytes_of(&input), &[0xEE; 40]);
        let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        for lane in 0..5usize {
            // input[lane + 6] exists for lanes 0 and 1 only. `local` is each lane's own:
            // lanes 0-3 wrote 5 at the index they read; lane 4 wrote its local[3] (an index past
            // the kernel's own array clamps, naga's `Restrict`) and reads its zeroed local[0].
            let read = if lane + 6 < 8 { input[lane + 6] } else { 0 };
            let local = if lane < 4 { 5 } else { 0 };
            assert_eq!(word(lane * 2), read + local, "{name}: lane {lane}");
            assert_eq!(word(lane * 2 + 1), 0xEEEE_EEEE, "{name}: untouched word");
        }
    }
}

#[test]
fn an_index_past_the_kernels_own_array_clamps_to_its_last_element() {
    // naga's `Restrict` on the Vulkan device, the same on the reference device: the index is
    // clamped, so the write lands on element 3 and the read past the end reads it back.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> shared_words: array<u32, 4>;
@compute @workgroup_size(1)
fn main() {
    var local = array<u32, 4>(1u, 2u, 3u, 4u);
    let far = input[0];                  // 9
    local[far] = 40u;
    shared_words[far + 1u] = 70u;
    let v = vec3<u32>(5u, 6u, 7u);
    output[0] = local[far + 100u];
    output[1] = local[3];
    output[2] = local[0];
    output[3] = shared_words[3];
    output[4] = v[far];
}
"#;
    for (name, ctx) in kernel_contexts() {
        let out = run(&ctx, wgsl, "main", [1, 1, 1], &[], &bytes_of(&[9u32]), &[0; 20]);
        assert_eq!(out, bytes_of(&[40u32, 40, 1, 70, 7]), "{name}");
    }
}

/// The float kernel's results against Rust's IEEE-754 arithmetic (round to nearest even).
/// Exact: add, sub, mul, floor, ceil, trunc, round, negation, abs, comparisons,
/// integer-to-float conversions and `select`. `fma` may be fused or not (WGSL and SPIR-V's
/// `Fma` allow either; the reference device fuses, lavapipe does not): either result passes.
/// Tolerances, as Vulkan and D3D11.3 allow: division 2.5 ULP, square root 3 ULP (lavapipe and
/// the reference device are exact, GPUs need not be).
/// NaN results match as NaN, whatever their bits, and zeros match whatever their sign: Vulkan
/// keeps neither without `SignedZeroInfNanPreserve` (NVIDIA turns `select(a, b, a < b)` into a
/// `max` that gives +0 for (−0, +0)). A denormal result may be flushed to zero (D3D11.3, and
/// NVIDIA does). Division is checked only for divisors in 2^−126–2^126, the range D3D11.3 gives
/// its 2.5 ULP for (NVIDIA divides by multiplying with the reciprocal, which flushes past it).
#[test]
fn float_arithmetic_follows_ieee_754_where_it_is_exact() {
    let values: [f32; 12] =
        [0.0, -0.0, 1.0, -1.0, 0.1, 3.5, -2.5, 1e30, -1e-30, f32::INFINITY, f32::NEG_INFINITY, f32::MAX];
    let ulps = |x: f32, y: f32| (x.to_bits() as i64 - y.to_bits() as i64).unsigned_abs();
    for (name, ctx) in kernel_contexts() {
        let out = run(
            &ctx,
            include_str!("shaders/floats.wgsl"),
            "main",
            [12, 1, 1],
            &[],
            &bytes_of(&values),
            &[0; 12 * 12 * 16 * 4],
        );
        let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        for (i, &a) in values.iter().enumerate() {
            for (j, &b) in values.iter().enumerate() {
                let base = (i * 12 + j) * 16;
                let cmp = (a < b) as u32 | ((a == b) as u32) << 1 | ((a >= b) as u32) << 2;
                let fused = a.mul_add(b, a);
                let got_fma = f32::from_bits(word(base + 5));
                let unfused = a * b + a;
                assert!(
                    [fused, unfused].iter().any(|w| w.to_bits() == got_fma.to_bits()
                        || (w.is_nan() && got_fma.is_nan())
                        || (*w == 0.0 && got_fma == 0.0)),
                    "{name}: fma({a}, {b}, {a}) = {got_fma}, want {fused} or {unfused}"
                );
                let exact: [(usize, u32); 13] = [
                    (0, (a + b).to_bits()),
                    (1, (a - b).to_bits()),
                    (2, (a * b).to_bits()),
                    (6, a.floor().to_bits()),
                    (7, a.ceil().to_bits()),
                    (8, a.trunc().to_bits()),
                    (9, a.round_ties_even().to_bits()),
                    (10, (-a).to_bits()),
                    (11, a.abs().to_bits()),
                    (12, cmp),
                    (13, ((b.to_bits() >> 9) as i32 as f32).to_bits()),
                    (14, ((a.to_bits() >> 1) as f32).to_bits()),
                    (15, if a < b { b } else { a }.to_bits()),
                ];
                for (k, want) in exact {
                    let got = word(base + k);
                    let (g, w) = (f32::from_bits(got), f32::from_bits(want));
                    let flushed = w.is_subnormal() && g == 0.0;
                    let alike = k != 12 && ((g.is_nan() && w.is_nan()) || (g == 0.0 && w == 0.0) || flushed);
                    assert!(got == want || alike, "{name}: op {k} of ({a}, {b}): {got:#x}, want {want:#x}");
                }
                let divisor_in_range =
                    b.is_infinite() || b == 0.0 || (2f32.powi(-126)..=2f32.powi(126)).contains(&b.abs());
                for (k, want, tolerance) in [(3, a / b, 2), (4, a.abs().sqrt(), 3)] {
                    if k == 3 && !divisor_in_range {
                        continue;
                    }
                    let got = f32::from_bits(word(base + k));
                    let ok = (want.is_nan() && got.is_nan())
                        || got == want
                        || ulps(got, want) <= tolerance
                        || (want.is_subnormal() && got == 0.0);
                    assert!(ok, "{name}: op {k} of ({a}, {b}): {got}, want {want} within {tolerance} ULP");
                }
            }
        }
    }
}

#[test]
fn arrays_of_vectors_and_structs_move_whole_elements_per_thread() {
    // Each thread reads its element of an array of structs (a u32 and a vec2, 16 bytes with
    // padding) and of vec4s, and writes a vec4 and a struct; past the input's end it reads 0
    // (the last thread's struct lies half outside), and writes past the output's are dropped.
    let wgsl = r#"
struct S { a: u32, b: vec2<u32> }
@group(0) @binding(0) var<storage, read> input: array<S>;
@group(0) @binding(0) var<storage, read_write> output: array<vec4<u32>>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let s = input[id.x];
    output[id.x] = vec4<u32>(s.a, s.b.x, s.b.y, s.a + s.b.x + s.b.y + id.x);
}
"#;
    for (name, ctx) in kernel_contexts() {
        // Whole elements in bounds for every lane (8 structs, 8 vec4s: read and written a
        // component at a time for all lanes at once), then 7 structs and a half into 7 vec4s
        // (lane by lane, bounded).
        for (structs, words, outputs) in [(8usize, 32u32, 8usize), (7, 30, 7)] {
            // Words a, pad, b.x, b.y per struct (b aligned to 8).
            let input: Vec<u32> = (0..words).map(|i| 100 + i).collect();
            let out = run(&ctx, wgsl, "main", [1, 1, 1], &[], &bytes_of(&input), &vec![0xEE; outputs * 16]);
            let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
            for t in 0..outputs.min(structs) {
                let field = |k: usize| input.get(4 * t + k).copied().unwrap_or(0);
                let (a, bx, by) = (field(0), field(2), field(3));
                let want = [a, bx, by, a.wrapping_add(bx).wrapping_add(by).wrapping_add(t as u32)];
                let got: Vec<u32> = (0..4).map(|k| word(4 * t + k)).collect();
                assert_eq!(got, want, "{name}: {structs} structs, thread {t}");
            }
            // In the second run thread 7's vec4 is past the output's 7: dropped.
            assert_eq!(out.len(), outputs * 16, "{name}");
        }
    }
}

#[test]
fn functions_take_pointers_to_their_callers_variables() {
    // WGSL passes `ptr<function, T>` by reference: the callee's stores land in the caller's
    // variable, for the lanes that call it (odd lanes here), and a uniform local stays each
    // lane's own once some lanes change it.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
fn bump(p: ptr<function, u32>, by: u32) { *p = *p + by; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var a = id.x;
    var shared_start = 100u;
    bump(&a, input[0]);
    if (id.x & 1u) == 1u { bump(&shared_start, id.x); }
    output[id.x] = a * 1000u + shared_start;
}
"#;
    for (name, ctx) in kernel_contexts() {
        let out = run(&ctx, wgsl, "main", [1, 1, 1], &[], &bytes_of(&[5u32]), &[0; 256]);
        let want: Vec<u32> = (0..64u32).map(|i| (i + 5) * 1000 + 100 + if i & 1 == 1 { i } else { 0 }).collect();
        assert_eq!(out, bytes_of(&want), "{name}");
    }
}

#[test]
fn lanes_indexing_arrays_by_their_thread_id_clamp_or_read_zero_past_the_end() {
    // Every lane's index counts up by one (a run at one stride, which the reference device
    // keeps without a list of offsets): the kernel's own array still clamps lanes 3.. to its
    // last element, and lanes past the app's buffer still read 0.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var local = array<u32, 4>(10u, 20u, 30u, 40u);
    output[id.x] = local[id.x] * 1000u + input[id.x];
}
"#;
    for (name, ctx) in kernel_contexts() {
        let input: Vec<u32> = (0..40).map(|i| i + 1).collect();
        let out = run(&ctx, wgsl, "main", [1, 1, 1], &[], &bytes_of(&input), &[0; 256]);
        let want: Vec<u32> =
            (0..64u32).map(|i| [10, 20, 30, 40][i.min(3) as usize] * 1000 + if i < 40 { i + 1 } else { 0 }).collect();
        assert_eq!(out, bytes_of(&want), "{name}");
    }
}
