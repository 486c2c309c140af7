// Native FillBuffers: one dispatch fills a whole batch. The fills' dwords are laid end to end
// (each fill from its `start`, a multiple of 4) and cut into ranges of RANGE dwords (16 KiB)
// that workgroups take grid-stride, so that the groups running at once work on neighbouring
// ranges. A group reads the fill a range begins in from the index after the fills, then fills
// fill after fill until the range is done. Dword i of a fill takes pattern dword (i mod length).
// Fills whose destination is 16-byte aligned, whose size is whole quads and whose pattern
// repeats within 16 bytes (1, 2 or 4 dwords) are written a quad per store, which is what
// reaches the memory bandwidth.
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

struct Fill {
    uvec4 pattern;
    uvec2 dst;
    uint count;
    uint pattern_length;
    uint start;
    uint pad0;
    uint pad1;
    uint pad2;
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Table {
    Fill f[];
};

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Index {
    uint first[];
};

layout(push_constant) uniform Constants {
    Table table;
    uint fills;
    // Dwords of all fills together, each fill's rounded up to whole quads (below 2^31).
    uint total;
} pc;

const uint RANGE = 4096u;

void main() {
    // Each range's first fill follows the fills.
    uint carry;
    uvec2 table = uvec2(pc.table);
    uint low = uaddCarry(table.x, pc.fills * 48u, carry);
    Index index = Index(uvec2(low, table.y + carry));
    uint t = gl_LocalInvocationID.x;
    uint ranges = pc.total / RANGE + (pc.total % RANGE != 0u ? 1u : 0u);
    for (uint range = gl_WorkGroupID.x; range < ranges; range += gl_NumWorkGroups.x) {
        uint v = range * RANGE;
        uint end = min(v + RANGE, pc.total);
        uint lo = index.first[range];
        for (uint p = lo; p < pc.fills && v < end; p++) {
            Fill f = pc.table.f[p];
            // v and end are whole quads, and so is every start: `from` is too.
            uint from = v - f.start;
            uint to = min(f.count, end - f.start);
            uint len = clamp(f.pattern_length, 1u, 4u);
            if ((f.dst.x & 15u) == 0u && (f.count & 3u) == 0u && len != 3u) {
                uvec4 quad = uvec4(f.pattern[0], f.pattern[1u % len], f.pattern[2u % len], f.pattern[3u % len]);
                Quads dst = Quads(f.dst);
                for (uint q = from / 4u + t; q < to / 4u; q += 256u) {
                    dst.v[q] = quad;
                }
            } else {
                Dwords dst = Dwords(f.dst);
                for (uint i = from + t; i < to; i += 256u) {
                    dst.v[i] = f.pattern[i % len];
                }
            }
            // Past this fill's dwords (a range may end inside its rounding to whole quads).
            v = f.start + ((to + 3u) & ~3u);
        }
    }
}
