//! Traffic patterns and size / deadline / arrival distributions, traces.
