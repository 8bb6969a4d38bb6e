#pragma once
// Just enough of a PNG decoder to look at a browser's screenshot: 8-bit
// gray, gray+alpha, RGB or RGBA, not interlaced (what Chromium writes).
// Pixels come back as 0xRRGGBBAA.

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace anatomy::testing {

struct PngImage {
  uint32_t width = 0, height = 0;
  std::vector<uint32_t> pixels;
  std::string error;  // set when the file could not be decoded
};

inline PngImage decode_png(const std::string& file) {
  PngImage img;
  const auto u32 = [&](size_t at) {
    return static_cast<uint32_t>(static_cast<unsigned char>(file[at])) << 24 |
           static_cast<uint32_t>(static_cast<unsigned char>(file[at + 1])) << 16 |
           static_cast<uint32_t>(static_cast<unsigned char>(file[at + 2])) << 8 |
           static_cast<uint32_t>(static_cast<unsigned char>(file[at + 3]));
  };
  if (file.size() < 8 || file.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    img.error = "not a PNG file";
    return img;
  }
  int depth = 0, color = -1, interlace = 0;
  std::string idat;
  for (size_t at = 8; at + 12 <= file.size();) {
    const uint32_t len = u32(at);
    const std::string type = file.substr(at + 4, 4);
    if (at + 12 + len > file.size()) break;
    if (type == "IHDR") {
      img.width = u32(at + 8);
      img.height = u32(at + 12);
      depth = static_cast<unsigned char>(file[at + 16]);
      color = static_cast<unsigned char>(file[at + 17]);
      interlace = static_cast<unsigned char>(file[at + 20]);
    } else if (type == "IDAT") {
      idat += file.substr(at + 8, len);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + len;
  }
  const int channels = color == 0 ? 1 : color == 4 ? 2 : color == 2 ? 3 : color == 6 ? 4 : 0;
  if (depth != 8 || channels == 0 || interlace != 0 || img.width == 0 || img.height == 0) {
    img.error = "unsupported PNG (depth " + std::to_string(depth) + ", color type " + std::to_string(color) + ")";
    return img;
  }
  const size_t stride = static_cast<size_t>(img.width) * channels;
  std::vector<unsigned char> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      raw_len != raw.size()) {
    img.error = "corrupt image data";
    return img;
  }
  // Undo each row's filter (PNG spec section 9), in place.
  std::vector<unsigned char> prev(stride, 0);
  img.pixels.reserve(static_cast<size_t>(img.width) * img.height);
  for (uint32_t y = 0; y < img.height; ++y) {
    unsigned char* row = raw.data() + y * (stride + 1);
    const int filter = row[0];
    unsigned char* px = row + 1;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<size_t>(channels) ? px[i - channels] : 0;
      const int b = prev[i];
      const int c = i >= static_cast<size_t>(channels) ? prev[i - channels] : 0;
      int pred = 0;
      switch (filter) {
        case 0:
          pred = 0;
          break;
        case 1:
          pred = a;
          break;
        case 2:
          pred = b;
          break;
        case 3:
          pred = (a + b) / 2;
          break;
        case 4: {
          const int p = a + b - c, pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p, pc = p > c ? p - c : c - p;
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          img.error = "bad filter";
          return img;
      }
      px[i] = static_cast<unsigned char>(px[i] + pred);
    }
    for (uint32_t x = 0; x < img.width; ++x) {
      const unsigned char* p = px + x * channels;
      uint32_t r, g, b, a = 255;
      if (channels <= 2)
        r = g = b = p[0];
      else
        r = p[0], g = p[1], b = p[2];
      if (channels == 2) a = p[1];
      if (channels == 4) a = p[3];
      img.pixels.push_back(r << 24 | g << 16 | b << 8 | a);
    }
    prev.assign(px, px + stride);
  }
  return img;
}

}  // namespace anatomy::testing
