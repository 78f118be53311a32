// Wrong on purpose: a panel running the simulator itself, past engine/ (graph.h, a type, is fine).
#include "graph/graph.h"
#include "sim/simulator.h"
