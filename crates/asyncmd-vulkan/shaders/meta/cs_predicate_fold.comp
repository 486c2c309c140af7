// Internal: folds D3D12's 64-bit predicate into the 32-bit value conditional rendering reads.
#version 450
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 1) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Dwords {
    uint v[];
};

layout(push_constant) uniform Constants {
    Dwords source;
    Dwords dest;
} pc;

void main() {
    pc.dest.v[0] = (pc.source.v[0] | pc.source.v[1]) != 0u ? 1u : 0u;
}
