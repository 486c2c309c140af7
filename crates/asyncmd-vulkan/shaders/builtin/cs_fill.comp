// ShaderId::FillCs: dword i of the destination gets pattern dword (i mod length), for i below
// the count, whatever the grid: its threads take the dwords grid-stride (x fastest, 256 threads
// per group: FILL_THREADS_PER_GROUP). Where the destination is 16-byte aligned and the pattern
// repeats within 16 bytes (1, 2 or 4 dwords), a thread stores a quad at a time, which is what
// reaches the memory bandwidth.
// The device bounds the count and the length it pushes by the root UAV's buffer (`Root::arguments`).
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Dwords {
    uint v[];
};

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Quads {
    uvec4 v[];
};

layout(push_constant) uniform Constants {
    uvec4 pattern;
    uint pattern_length;
    uint count;
    Dwords dst;
} pc;

void main() {
    uvec3 n = gl_NumWorkGroups * gl_WorkGroupSize;
    uvec3 g = gl_GlobalInvocationID;
    uint t = g.x + n.x * (g.y + n.y * g.z);
    uint threads = n.x * n.y * n.z;
    uint len = clamp(pc.pattern_length, 1u, 4u);
    uint count = pc.count;
    uint done = 0u;
    if ((uvec2(pc.dst).x & 15u) == 0u && len != 3u) {
        uvec4 quad = uvec4(pc.pattern[0], pc.pattern[1u % len], pc.pattern[2u % len], pc.pattern[3u % len]);
        Quads dst = Quads(pc.dst);
        // Steps stop before the index could wrap past 2^32 (the count is 32 bits).
        for (uint q = t; q < count / 4u; q = (count / 4u - q > threads) ? q + threads : count / 4u) {
            dst.v[q] = quad;
        }
        done = count / 4u * 4u;
    }
    for (uint i = done + t; i < count; i = (count - i > threads) ? i + threads : count) {
        pc.dst.v[i] = pc.pattern[i % len];
    }
}
