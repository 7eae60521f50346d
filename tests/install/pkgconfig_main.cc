// A program built without CMake, from `pkg-config --cflags --libs partkv` alone.
#include <cstdio>

#include "partkv/partkv.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  auto store = partkv::Store::Open(argv[1]);
  if (!store.ok()) return std::fprintf(stderr, "%s\n", store.status().ToString().c_str()), 1;
  if (!store->CreateTable("Things").ok()) return 1;
  auto table = store->OpenTable("Things");
  if (!table.ok()) return 1;
  partkv::Entity e("p", "r");
  e.Set("n", partkv::Value::Int64(7));
  if (!table->Insert(e).ok()) return 1;
  auto back = table->Get("p", "r");
  if (!back.ok()) return 1;
  std::printf("pkg-config read back: %lld\n", static_cast<long long>(back->Get("n")->as_int64()));
  return 0;
}
