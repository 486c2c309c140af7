// Native FillBuffers: one dispatch fills a whole batch. The batch is cut into chunks of CHUNK
// dwords (64 KiB), fill f owning chunks [first[f], first[f + 1]); workgroups take chunks
// grid-stride and find a chunk's fill by binary search over `first`, a packed array after the
// fills (so that the last steps of a search share cache lines). Dword i of a fill takes
// pattern dword (i mod length). Fills whose destination is 16-byte aligned, whose size is whole
// quads and whose pattern repeats within 16 bytes (1, 2 or 4 dwords) are written a quad per
// store, which is what reaches the memory bandwidth.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x = 256) in;

const uint CHUNK = 16384u;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Dwords {
    uint v[];
};

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Quads {
    uvec4 v[];
};

struct Fill {
    uvec4 pattern;
    uvec2 dst;
    uint count;
    uint pattern_length;
    uint first;
    uint pad0;
    uint pad1;
    uint pad2;
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Table {
    Fill f[];
};

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Firsts {
    uint first[];
};

layout(push_constant) uniform Constants {
    Table table;
    uint fills;
    uint chunks;
} pc;

void main() {
    // The packed first chunks follow the fills.
    uint carry;
    uvec2 table = uvec2(pc.table);
    uint low = uaddCarry(table.x, pc.fills * 48u, carry);
    Firsts firsts = Firsts(uvec2(low, table.y + carry));
    for (uint c = gl_WorkGroupID.x; c < pc.chunks; c += gl_NumWorkGroups.x) {
        // The last fill whose first chunk is at or before c.
        uint lo = 0u;
        uint hi = pc.fills - 1u;
        while (lo < hi) {
            uint mid = (lo + hi + 1u) >> 1u;
            if (firsts.first[mid] <= c) {
                lo = mid;
            } else {
                hi = mid - 1u;
            }
        }
        Fill f = pc.table.f[lo];
        uint len = clamp(f.pattern_length, 1u, 4u);
        uint start = (c - f.first) * CHUNK;
        uint end = min(start + CHUNK, f.count);
        if ((f.dst.x & 15u) == 0u && (f.count & 3u) == 0u && len != 3u) {
            uvec4 quad = uvec4(f.pattern[0], f.pattern[1u % len], f.pattern[2u % len], f.pattern[3u % len]);
            Quads dst = Quads(f.dst);
            for (uint q = start / 4u + gl_LocalInvocationID.x; q < end / 4u; q += 256u) {
                dst.v[q] = quad;
            }
        } else {
            Dwords dst = Dwords(f.dst);
            for (uint i = start + gl_LocalInvocationID.x; i < end; i += 256u) {
                dst.v[i] = f.pattern[i % len];
            }
        }
    }
}
