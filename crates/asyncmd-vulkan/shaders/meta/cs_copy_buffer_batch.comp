// Native CopyBufferRegions: one dispatch copies a whole batch. Workgroup row y copies region y
// of the table (16-byte elements, grid-stride over the row's groups).
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
    uint pad0;
    uint pad1;
    uint pad2;
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Table {
    Region r[];
};

layout(push_constant) uniform Constants {
    Table table;
    uint first;
} pc;

void main() {
    Region r = pc.table.r[pc.first + gl_WorkGroupID.y];
    Data src = Data(r.src);
    Data dst = Data(r.dst);
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x; i < r.count; i += stride) {
        dst.v[i] = src.v[i];
    }
}
