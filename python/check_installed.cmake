# python.InstalledPackageImports: `cmake --install` into a private prefix, then a program run by
# the package's interpreter with nothing but PYTHONPATH pointing at the installed package (no
# PARTKV_LIBRARY, no PARTKV_C_HEADER: the installed _paths.py names the installed library and
# header) writes and reads an entity, and uses the installed compiled module when one was built.
# Usage: cmake -DBUILD_DIR=... -DWORK_DIR=... -DPYTHON=... -DPACKAGE_DIR=<relative install dir>
#              -DEXPECT_SPEEDUPS=ON|OFF -P check_installed.cmake
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed")
endif()
set(program [=[
import os, sys
for name in ("PARTKV_LIBRARY", "PARTKV_C_HEADER", "PARTKV_SPEEDUPS", "PARTKV_PYTHON_PURE"):
    assert name not in os.environ, name
import partkv
from partkv import _codec
prefix = os.path.realpath(sys.argv[1])
assert os.path.realpath(partkv.__file__).startswith(prefix), partkv.__file__
assert os.path.realpath(partkv.LIBRARY_PATH).startswith(prefix), partkv.LIBRARY_PATH
with partkv.TableServiceClient(os.path.join(sys.argv[2])) as service:
    table = service.create_table("Things")
    table.create_entity({"PartitionKey": "p", "RowKey": "r",
                         "n": partkv.EntityProperty(7, partkv.EdmType.INT64)})
    print("python read back:", table.get_entity("p", "r")["n"].value,
          "speedups" if _codec.SPEEDUPS else "pure")
]=])
file(WRITE ${WORK_DIR}/program.py "${program}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PARTKV_LIBRARY --unset=PARTKV_C_HEADER
    --unset=PARTKV_SPEEDUPS --unset=PARTKV_PYTHON_PURE
    PYTHONPATH=${WORK_DIR}/prefix/${PACKAGE_DIR} PYTHONDONTWRITEBYTECODE=1
    ${PYTHON} ${WORK_DIR}/program.py ${WORK_DIR}/prefix ${WORK_DIR}/store
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "the installed package said: ${out}${err}")
if(EXPECT_SPEEDUPS)
  set(expected "python read back: 7 speedups")
else()
  set(expected "python read back: 7 pure")
endif()
if(NOT rc EQUAL 0 OR NOT out MATCHES "${expected}")
  message(FATAL_ERROR "the installed package did not run as expected (exit ${rc}; wanted '${expected}')")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
