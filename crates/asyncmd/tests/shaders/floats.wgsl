// Float arithmetic on edge values: every pair (a, b) of the input's 12 values, one thread a
// pair, 16 results a thread. Read by `shader_conformance::float_arithmetic_follows_ieee_754_where_it_is_exact`.
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(12)
fn main(@builtin(local_invocation_index) j: u32, @builtin(workgroup_id) g: vec3<u32>) {
    let a = input[g.x];
    let b = input[j];
    let base = (g.x * 12u + j) * 16u;
    output[base + 0u] = bitcast<u32>(a + b);
    output[base + 1u] = bitcast<u32>(a - b);
    output[base + 2u] = bitcast<u32>(a * b);
    output[base + 3u] = bitcast<u32>(a / b);
    output[base + 4u] = bitcast<u32>(sqrt(abs(a)));
    output[base + 5u] = bitcast<u32>(fma(a, b, a));
    output[base + 6u] = bitcast<u32>(floor(a));
    output[base + 7u] = bitcast<u32>(ceil(a));
    output[base + 8u] = bitcast<u32>(trunc(a));
    output[base + 9u] = bitcast<u32>(round(a));
    output[base + 10u] = bitcast<u32>(-a);
    output[base + 11u] = bitcast<u32>(abs(a));
    output[base + 12u] = u32(a < b) | (u32(a == b) << 1u) | (u32(a >= b) << 2u);
    output[base + 13u] = bitcast<u32>(f32(bitcast<i32>(bitcast<u32>(b) >> 9u)));
    output[base + 14u] = bitcast<u32>(f32(bitcast<u32>(a) >> 1u));
    output[base + 15u] = bitcast<u32>(select(a, b, a < b));
}
