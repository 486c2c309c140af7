// Native CopyBufferRegions (and CopyResources and CopyTilesAsync of buffers): one dispatch copies
// a whole batch. The batch is cut into chunks of CHUNK 16-byte elements (64 KiB), region r
// owning chunks [first[r], first[r + 1]); workgroups take chunks grid-stride and find a chunk's
// region by binary search over `first`, a packed array after the regions (so that the last
// steps of a search share cache lines), so a few large regions and many small ones fill the GPU
// alike. Each thread loads UNROLL elements of a chunk before it stores them, four times a chunk.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x = 256) in;

const uint UNROLL = 4u;
const uint CHUNK = 4096u;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Data {
    uvec4 v[];
};

struct Region {
    uvec2 src;
    uvec2 dst;
    uint count;
    uint first;
    uint pad0;
    uint pad1;
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Table {
    Region r[];
};

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Firsts {
    uint first[];
};

layout(push_constant) uniform Constants {
    Table table;
    uint regions;
    uint chunks;
} pc;

void main() {
    // The packed first chunks follow the regions.
    uint carry;
    uvec2 table = uvec2(pc.table);
    uint low = uaddCarry(table.x, pc.regions * 32u, carry);
    Firsts firsts = Firsts(uvec2(low, table.y + carry));
    for (uint c = gl_WorkGroupID.x; c < pc.chunks; c += gl_NumWorkGroups.x) {
        // The last region whose first chunk is at or before c.
        uint lo = 0u;
        uint hi = pc.regions - 1u;
        while (lo < hi) {
            uint mid = (lo + hi + 1u) >> 1u;
            if (firsts.first[mid] <= c) {
                lo = mid;
            } else {
                hi = mid - 1u;
            }
        }
        Region r = pc.table.r[lo];
        Data src = Data(r.src);
        Data dst = Data(r.dst);
        for (uint step = 0u; step < CHUNK; step += 256u * UNROLL) {
            uint base = (c - r.first) * CHUNK + step + gl_LocalInvocationID.x;
            uvec4 v[UNROLL];
            for (uint k = 0u; k < UNROLL; k++) {
                uint i = base + k * 256u;
                if (i < r.count) {
                    v[k] = src.v[i];
                }
            }
            for (uint k = 0u; k < UNROLL; k++) {
                uint i = base + k * 256u;
                if (i < r.count) {
                    dst.v[i] = v[k];
                }
            }
        }
    }
}
