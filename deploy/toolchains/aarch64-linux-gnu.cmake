# CMake toolchain file: aarch64 Linux (glibc) with Debian's cross toolchain
# (crossbuild-essential-arm64 or g++-aarch64-linux-gnu), or with clang and lld
# (-DKILN_CROSS_CLANG=ON: clang --target=aarch64-linux-gnu -fuse-ld=lld over the same cross
# libraries). Used for kiln-device-runner (`make cross-aarch64`, worker/device_runner/).
# Programs it builds run here under qemu-user: CMAKE_CROSSCOMPILING_EMULATOR is
# qemu-aarch64-static with the cross libraries as its root, when it is installed.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(KILN_CROSS_TRIPLE aarch64-linux-gnu)
set(KILN_CROSS_SYSROOT /usr/${KILN_CROSS_TRIPLE})

option(KILN_CROSS_CLANG "Cross-compile with clang and lld instead of the GNU cross toolchain" OFF)
if(KILN_CROSS_CLANG)
  set(CMAKE_C_COMPILER clang)
  set(CMAKE_CXX_COMPILER clang++)
  set(CMAKE_C_COMPILER_TARGET ${KILN_CROSS_TRIPLE})
  set(CMAKE_CXX_COMPILER_TARGET ${KILN_CROSS_TRIPLE})
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
  set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
else()
  set(CMAKE_C_COMPILER ${KILN_CROSS_TRIPLE}-gcc)
  set(CMAKE_CXX_COMPILER ${KILN_CROSS_TRIPLE}-g++)
endif()

set(CMAKE_FIND_ROOT_PATH ${KILN_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(KILN_QEMU_AARCH64 qemu-aarch64-static)
if(KILN_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${KILN_QEMU_AARCH64} -L ${KILN_CROSS_SYSROOT})
endif()
