// Native CopyBufferRegions (and CopyResources and CopyTilesAsync of buffers): one dispatch copies
// a whole batch. The regions' 16-byte elements are laid end to end (each region from its
// `start`) and cut into ranges of RANGE elements (16 KiB) that workgroups take grid-stride, so
// that the groups running at once work on neighbouring ranges. A group reads the region a range
// begins in from the index after the regions, then copies region after region until the range
// is done. So one large region, many small ones and any mix fill the GPU alike, and small
// regions share a range instead of leaving threads idle. Each thread loads up to four elements
// before it stores them.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Data {
    uvec4 v[];
};

struct Region {
    uvec2 src;
    uvec2 dst;
    uint count;
    uint start;
    uint pad0;
    uint pad1;
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Table {
    Region r[];
};

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Index {
    uint first[];
};

layout(push_constant) uniform Constants {
    Table table;
    uint regions;
    // Elements of all regions together (below 2^31).
    uint total;
} pc;

const uint RANGE = 1024u;

void main() {
    // Each range's first region follows the regions.
    uint carry;
    uvec2 table = uvec2(pc.table);
    uint low = uaddCarry(table.x, pc.regions * 32u, carry);
    Index index = Index(uvec2(low, table.y + carry));
    uint ranges = pc.total / RANGE + (pc.total % RANGE != 0u ? 1u : 0u);
    for (uint range = gl_WorkGroupID.x; range < ranges; range += gl_NumWorkGroups.x) {
        uint v = range * RANGE;
        uint end = min(v + RANGE, pc.total);
        uint lo = index.first[range];
        for (uint p = lo; p < pc.regions && v < end; p++) {
            Region r = pc.table.r[p];
            uint from = v - r.start;
            uint to = min(r.count, end - r.start);
            Data src = Data(r.src);
            Data dst = Data(r.dst);
            for (uint base = from + gl_LocalInvocationID.x; base < to; base += 1024u) {
                uvec4 e[4];
                for (uint k = 0u; k < 4u; k++) {
                    uint i = base + k * 256u;
                    if (i < to) {
                        e[k] = src.v[i];
                    }
                }
                for (uint k = 0u; k < 4u; k++) {
                    uint i = base + k * 256u;
                    if (i < to) {
                        dst.v[i] = e[k];
                    }
                }
            }
            v = r.start + to;
        }
    }
}
