// The translation unit that carries the precompiled header every module reuses
// (CMakeLists.txt, feeddiff_module_pch); it defines nothing.
