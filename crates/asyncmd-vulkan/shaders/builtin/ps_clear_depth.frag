// ShaderId::ClearPsDepth: writes the clear depth; the pipeline decides which planes change.
#version 450

layout(push_constant) uniform Constants {
    uvec4 value;
    float depth;
    uint slice;
} pc;

void main() {
    gl_FragDepth = pc.depth;
}
