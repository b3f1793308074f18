"""Rebuild the example tensors from their source image (needs matplotlib and pillow).

Source: grace_hopper.jpg, the portrait of Rear Admiral Grace Hopper (U.S. Navy
photograph, public domain) that matplotlib ships as sample data in
matplotlib/mpl-data/sample_data/. It is 600 x 512 RGB; each 4 x 4 block is
averaged to 150 x 128 to keep the files small.

    python examples/make_examples.py
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.cbook
import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    with matplotlib.cbook.get_sample_data("grace_hopper.jpg") as f:
        from PIL import Image

        rgb = np.asarray(Image.open(f).convert("RGB"), dtype=np.float64) / 255.0  # (600, 512, 3)
    h, w = rgb.shape[0] // 4, rgb.shape[1] // 4
    small = rgb[: h * 4, : w * 4].reshape(h, 4, w, 4, 3).mean(axis=(1, 3))  # (150, 128, 3)
    nchw = np.ascontiguousarray(small.transpose(2, 0, 1)[None]).astype(np.float32)  # (1, 3, 150, 128)
    np.save(HERE / "grace_hopper.npy", nchw)
    planes = {channel: np.ascontiguousarray(nchw[0, i]) for i, channel in enumerate("rgb")}
    for channel, plane in planes.items():
        np.save(HERE / f"grace_hopper_{channel}.npy", plane)
    np.savez(HERE / "grace_hopper_rgb.npz", **planes)
    print("wrote", nchw.shape, nchw.dtype)


if __name__ == "__main__":
    main()
