// Former name of rdpaudit/rng/stream.hpp (the generator is now ARS-7, not Philox): kept only
// so that modules not yet switched keep compiling. New code includes stream.hpp.
#pragma once

#include "rdpaudit/rng/stream.hpp"
