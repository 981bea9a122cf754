{
  "targets": [
    {
      "target_name": "faiss-node",
      "sources": ["faiss.cc"],
      "include_dirs": ["<(module_root_dir)", "<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17", "-std=gnu++14"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-frtti", "-fopenmp", "-include", "faiss-compat.h"],
      "ldflags": ["-fopenmp"],
      "libraries": ["-lfaiss", "-llapack", "-lblas", "-lgomp"]
    }
  ]
}
