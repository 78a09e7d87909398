/** Where a reel's video comes from: a public URL, or a video uploaded to the service (POST /videos). */
export type ReelSource = { video_url: string } | { video_id: string };
