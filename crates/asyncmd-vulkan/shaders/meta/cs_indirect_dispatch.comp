// Internal: the group counts of an ExecuteIndirect's dispatches, one per command slot: a
// command's own counts below the count (and the maximum), zeros past it, and zeros for a
// command whose counts pass D3D12's 65535 groups in a dimension.
#version 450
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Dwords {
    uint v[];
};

layout(push_constant) uniform Constants {
    Dwords commands;  // the first command's dispatch arguments
    Dwords groups;    // max_count × (x, y, z)
    Dwords count;     // the command count
    uint max_count;
    uint stride;      // dwords between commands
} pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.max_count) {
        return;
    }
    uvec3 g = uvec3(0u);
    if (i < min(pc.count.v[0], pc.max_count)) {
        g = uvec3(pc.commands.v[i * pc.stride], pc.commands.v[i * pc.stride + 1u], pc.commands.v[i * pc.stride + 2u]);
        if (any(greaterThan(g, uvec3(65535u)))) {
            g = uvec3(0u);
        }
    }
    pc.groups.v[3u * i] = g.x;
    pc.groups.v[3u * i + 1u] = g.y;
    pc.groups.v[3u * i + 2u] = g.z;
}
