// Native FillBuffers: one dispatch fills a whole batch. Workgroup row y fills entry y of the
// table: `count` dwords from `dst`, dword i taking pattern dword (i mod length). Entries whose
// destination is 16-byte aligned, whose size is whole 16-byte quads and whose pattern repeats
// within 16 bytes (1, 2 or 4 dwords) are written a quad per store, which is what reaches the
// memory bandwidth.
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
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Table {
    Fill f[];
};

layout(push_constant) uniform Constants {
    Table table;
    uint first;
} pc;

void main() {
    Fill f = pc.table.f[pc.first + gl_WorkGroupID.y];
    uint len = max(f.pattern_length, 1u);
    uint stride = gl_NumWorkGroups.x * 256u;
    uint start = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x;
    if ((f.dst.x & 15u) == 0u && (f.count & 3u) == 0u && len != 3u) {
        uvec4 quad = uvec4(f.pattern[0], f.pattern[1u % len], f.pattern[2u % len], f.pattern[3u % len]);
        Quads dst = Quads(f.dst);
        for (uint i = start; i < f.count / 4u; i += stride) {
            dst.v[i] = quad;
        }
        return;
    }
    Dwords dst = Dwords(f.dst);
    for (uint i = start; i < f.count; i += stride) {
        dst.v[i] = f.pattern[i % len];
    }
}
