// An application that knows partkv only through its installed headers and CMake package.
#include <cstdio>

#include "partkv/partkv.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  auto store = partkv::Store::Open(argv[1]);
  if (!store.ok()) return std::fprintf(stderr, "%s\n", store.status().ToString().c_str()), 1;
  if (auto s = store->CreateTable("Things"); !s.ok()) return 1;
  auto table = store->OpenTable("Things");
  if (!table.ok()) return 1;
  partkv::Entity e("p", "r");
  e.Set("n", partkv::Value::Int32(42));
  if (!table->Insert(e).ok()) return 1;
  auto back = table->Get("p", "r");
  if (!back.ok() || back->Get("n") == nullptr) return 1;
  std::printf("read back: %d\n", back->Get("n")->as_int32());
  return 0;
}
