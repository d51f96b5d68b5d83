// The workloads, one file each, in the order the table lists them.
#pragma once

#include <memory>
#include <string>

#include "harness/workload.h"

namespace wasmgpu::bench {

std::unique_ptr<Workload> make_triad(Gpu& gpu);
std::unique_ptr<Workload> make_reduce(Gpu& gpu);
std::unique_ptr<Workload> make_mandelbrot(Gpu& gpu);
std::unique_ptr<Workload> make_sgemm(Gpu& gpu);
std::unique_ptr<Workload> make_stencil(Gpu& gpu);
std::unique_ptr<Workload> make_horner_f64(Gpu& gpu);
std::unique_ptr<Workload> make_histogram(Gpu& gpu);
std::unique_ptr<Workload> make_particles(Gpu& gpu);
std::unique_ptr<Workload> make_jacobi_2d(Gpu& gpu);
std::unique_ptr<Workload> make_gesummv(Gpu& gpu);
std::unique_ptr<Workload> make_atax(Gpu& gpu);
std::unique_ptr<Workload> make_bicg(Gpu& gpu);
std::unique_ptr<Workload> make_mm2(Gpu& gpu);  // "2mm"
std::unique_ptr<Workload> make_fdtd_2d(Gpu& gpu);
std::unique_ptr<Workload> make_correlation(Gpu& gpu);

// The workload named `name` as the table names it ("2mm" for make_mm2).
std::unique_ptr<Workload> make_workload(Gpu& gpu, const std::string& name);

}  // namespace wasmgpu::bench
