// Kubernetes timestamps: metav1.Time serializes as RFC 3339 with second precision.

export const metaTime = (d: Date): string => d.toISOString().replace(/\.\d+Z$/, 'Z');
