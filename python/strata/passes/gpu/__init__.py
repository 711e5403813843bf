"""strata's GPU passes (NVIDIA via NVVM): mapping to blocks/threads, launches, host memory."""
